#!/usr/bin/env node
// `patchwork-test-agent SCRIPT.json`: the scripted ACP test agent (docs/agent.md), so that a
// program that thinks can be run and tested without a model: `patchwork run p.pw --agent
// "patchwork-test-agent script.json"`. The bundle module starts the agent when loaded.
"use strict";
import("../bundle/test-agent.js").catch((error) => {
  process.stderr.write(`patchwork-test-agent: ${error?.stack ?? error}\n`);
  process.exit(70);
});
