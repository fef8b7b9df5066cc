/** String methods. Positions and lengths count Unicode code points. */
import type { CallSite, MethodDef } from "../builtins/types.js";
import { typeName, type Value } from "../values.js";

function str(v: Value, what: string, site: CallSite): string {
  if (typeof v !== "string") return site.fail(`${what} must be a string, got ${typeName(v)}`);
  return v;
}

function m(min: number, max: number, fn: (s: string, args: Value[], site: CallSite) => Value): MethodDef {
  return { min, max, fn: fn as MethodDef["fn"] };
}

export function splitLines(s: string): string[] {
  if (s.length === 0) return [];
  const lines = s.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export const stringMethods: Record<string, MethodDef> = {
  trim: m(0, 0, (s) => s.trim()),
  startsWith: m(1, 1, (s, a, site) => s.startsWith(str(a[0]!, "the prefix", site))),
  endsWith: m(1, 1, (s, a, site) => s.endsWith(str(a[0]!, "the suffix", site))),
  includes: m(1, 1, (s, a, site) => s.includes(str(a[0]!, "the text", site))),
  split: m(0, 1, (s, a, site) => {
    if (a.length === 0) return [s];
    const sep = str(a[0]!, "the separator", site);
    return sep === "" ? Array.from(s) : s.split(sep);
  }),
  /** Replaces every occurrence. */
  replace: m(2, 2, (s, a, site) => s.split(str(a[0]!, "the pattern", site)).join(str(a[1]!, "the replacement", site))),
  toUpperCase: m(0, 0, (s) => s.toUpperCase()),
  toLowerCase: m(0, 0, (s) => s.toLowerCase()),
  lines: m(0, 0, (s) => splitLines(s)),
};
