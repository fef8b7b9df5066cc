export type * from "./ast.js";
export { SourceFile } from "./source.js";
export { formatDiagnostic, hasErrors } from "./diagnostics.js";
export type { Diagnostic, Severity } from "./diagnostics.js";
export { parse } from "./parse.js";
export type { ParseOptions, ParseResult } from "./parse.js";
export { loadThreadbare } from "./threadbare.js";
export type { LoadOptions } from "./threadbare.js";
export { astToJson } from "./astJson.js";
