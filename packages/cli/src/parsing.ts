// The parser, for the CLI's run and check paths: imported with `await import("./parsing.js")`
// only when the parse cache (cache.ts) lacks a file, so that the bundle puts the parser and
// Chevrotain in a chunk of their own that a warm run never loads (decision 0010).
export { loadThreadbare, parse } from "@patchwork/parser";
export { parseModule } from "@patchwork/interpreter";
