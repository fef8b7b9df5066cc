#!/usr/bin/env node
// The stdio MCP relay script an agent spawns (`node relay-main.js SOCKET`).
import { runMcpRelay } from "./relay.js";

runMcpRelay(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  process.stdin.destroy();
});
