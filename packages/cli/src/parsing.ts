// The parser, for the CLI's run path: loaded only when the parse cache (cache.ts) lacks a file,
// so that a warm run never loads the parser and Chevrotain (decision 0010). In the bundle it is
// the classic script `parsing.script.js`, compiled with a V8 code cache (cache.ts `loadScript`, decision
// 0017); from the sources, `await import("./parsing.js")`. The parser only: the interpreter's
// main entry point would bring a copy of its runtime into the script.
export { parse } from "@patchwork/parser";
