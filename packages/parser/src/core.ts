/**
 * `@patchwork/parser/core`: the parser package without the parser. Source positions,
 * diagnostics and the AST's types, for code that handles ASTs and diagnostics it did not
 * parse (the CLI's parse cache, decision 0010): importing this never loads Chevrotain.
 */
export type * from "./ast.js";
export { SourceFile } from "./source.js";
export { DIAGNOSTICS_SHOWN_PER_FILE, EXCERPT_MAX, formatDiagnostic, formatDiagnostics, hasErrors } from "./diagnostics.js";
export type { Diagnostic, Severity } from "./diagnostics.js";
export { Codes, type Code } from "./codes.js";
export { foreignName } from "./foreign-names.js";
