// The parser, for the CLI's run and check paths: loaded only when the parse cache (cache.ts)
// lacks a file, so that a warm run never loads the parser and Chevrotain (decision 0010). In
// the bundle it is the classic script `parsing.script.js`, compiled with a V8 code cache
// (code-cache.ts, decision 0016); from the sources, `await import("./parsing.js")`.
// Only @patchwork/parser, and the interpreter's core (which the run has loaded already): the
// interpreter's main entry point would bring a copy of its runtime into the script.
import { parse } from "@patchwork/parser";
import { importedModule, type ParseFn } from "@patchwork/interpreter/core";

export { loadThreadbare, parse } from "@patchwork/parser";

/** Parses an imported module for the interpreter (as @patchwork/interpreter's `parseModule`). */
export const parseModule: ParseFn = (source, fileName) => importedModule(parse(source, { fileName }), fileName);
