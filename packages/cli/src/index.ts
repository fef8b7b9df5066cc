export { cli, main } from "./main.js";
export { processTerminal } from "./terminal.js";
export type { Terminal } from "./terminal.js";
