// `node …/bundle/test-agent.js SCRIPT.json`: the scripted ACP test agent of @patchwork/agent
// (docs/agent.md), shipped in the CLI's package so that its users can test programs that think
// without a model. In the workspace, packages/agent/bin/patchwork-test-agent.js is the same.
import { runTestAgentMain } from "@patchwork/agent";

runTestAgentMain(process.argv.slice(2));
