/**
 * Chevrotain's grammar analysis of the lexer and the parser, computed at build time
 * (docs/decisions/0011-precomputed-grammar-analysis.md). This source is a stub: `npm run build`
 * replaces the compiled `dist/tables.js` with the tables computed from the compiled grammar
 * (scripts/generate-parser-tables.mjs). Without them (a bare `tsc -b`, the sources under
 * vitest) the lexer and the parser do Chevrotain's full analysis, as before.
 */
import type { Tables } from "./stored-tables.js";

/** The tables (parsed on the first call, so that importing the package costs nothing). */
export function loadTables(): Tables | undefined {
  return undefined;
}
