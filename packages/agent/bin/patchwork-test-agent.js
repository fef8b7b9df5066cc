#!/usr/bin/env node
// Thin launcher for the scripted ACP test agent (compiled TypeScript in ../dist).
import { runTestAgentMain } from "../dist/index.js";
runTestAgentMain(process.argv.slice(2));
