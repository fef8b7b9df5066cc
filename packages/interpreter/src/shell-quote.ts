/** Quoting of text as sh code: the fallback where a value cannot be passed as data (compiler/shell.ts, shell-values.ts). Property-tested. */

/** Quotes a string as one literal sh word. */
export function shellQuote(s: string): string {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}
