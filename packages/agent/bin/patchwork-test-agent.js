#!/usr/bin/env node
// Thin launcher for the scripted ACP test agent (compiled TypeScript in ../dist).
// Imports the test agent module directly (same function as `runTestAgentMain` in ../dist/index.js)
// so the agent starts without loading the client runtime.
import { runTestAgentMain } from "../dist/test-agent/main.js";
runTestAgentMain(process.argv.slice(2));
