/**
 * String methods. Positions and lengths count Unicode code points. Methods whose result can
 * grow (`repeat`, `padStart`, `padEnd`, `replace`) or that split into arrays check the size
 * limits before building anything, and charge their work to the step budget.
 */
import type { CallSite, MethodDef } from "../builtins/types.js";
import { codePointLength, typeName, type Value } from "../values.js";

function str(v: Value, what: string, site: CallSite): string {
  if (typeof v !== "string") return site.fail(`${what} must be a string, got ${typeName(v)}`);
  return v;
}

function count(v: Value, what: string, site: CallSite): number {
  if (typeof v !== "number") return site.fail(`${what} must be a number, got ${typeName(v)}`);
  if (v !== v) return site.fail(`${what} must be a number, got NaN`);
  return v;
}

function m(min: number, max: number, fn: (s: string, args: Value[], site: CallSite) => Value): MethodDef {
  return { min, max, fn: fn as MethodDef["fn"] };
}

/** Occurrences of a non-empty `sep` in `s`. */
function occurrences(s: string, sep: string): number {
  let n = 0;
  for (let i = s.indexOf(sep); i >= 0; i = s.indexOf(sep, i + sep.length)) n++;
  return n;
}

/** PW3073 unless splitting `s` at `sep` gives at most the array limit of pieces. */
function checkPieces(s: string, sep: string, site: CallSite): void {
  site.charge(s.length);
  const bound = sep === "" ? s.length : Math.floor(s.length / sep.length) + 1;
  if (bound <= site.rt.maxArrayLength) return;
  site.checkArray(sep === "" ? codePointLength(s) : occurrences(s, sep) + 1);
}

export function splitLines(s: string): string[] {
  if (s.length === 0) return [];
  const lines = s.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** `splitLines` for a method call or a `for` loop: within the array limit. */
export function splitLinesChecked(s: string, site: CallSite, what?: string): string[] {
  site.charge(s.length);
  if (s.length > site.rt.maxArrayLength) site.checkArray(occurrences(s, "\n") + (s.endsWith("\n") ? 0 : 1), what);
  return splitLines(s);
}

/** Every occurrence of `pat` replaced by `rep`, literally (an empty pattern goes between characters). */
function replaceAll(s: string, pat: string, rep: string, site: CallSite): string {
  checkPieces(s, pat, site);
  const n = pat === "" ? Math.max(s.length - 1, 0) : occurrences(s, pat);
  site.checkString(s.length + n * (rep.length - pat.length));
  return s.split(pat).join(rep);
}

function repeat(s: string, times: number, site: CallSite): string {
  if (times < 0 || times === Infinity) return site.fail(`the count must be a non-negative number, got ${times}`);
  const n = Math.floor(times);
  site.checkString(s.length * n);
  site.charge(s.length * n);
  return s.repeat(n);
}

/** The padding that brings `s` to `target` code points, made of `fill` repeated and cut. */
function padding(s: string, target: number, fill: string, site: CallSite): string {
  const need = Math.floor(target) - codePointLength(s);
  if (need <= 0 || fill === "") return "";
  const cps = Array.from(fill);
  const whole = Math.floor(need / cps.length);
  const rest = cps.slice(0, need % cps.length).join("");
  site.checkString(s.length + whole * fill.length + rest.length);
  site.charge(whole * fill.length);
  return fill.repeat(whole) + rest;
}

export const stringMethods: Record<string, MethodDef> = {
  trim: m(0, 0, (s) => s.trim()),
  startsWith: m(1, 1, (s, a, site) => s.startsWith(str(a[0]!, "the prefix", site))),
  endsWith: m(1, 1, (s, a, site) => s.endsWith(str(a[0]!, "the suffix", site))),
  includes: m(1, 1, (s, a, site) => s.includes(str(a[0]!, "the text", site))),
  split: m(0, 1, (s, a, site) => {
    if (a.length === 0) return [s];
    const sep = str(a[0]!, "the separator", site);
    checkPieces(s, sep, site);
    return sep === "" ? Array.from(s) : s.split(sep);
  }),
  /** Replaces every occurrence. */
  replace: m(2, 2, (s, a, site) => replaceAll(s, str(a[0]!, "the pattern", site), str(a[1]!, "the replacement", site), site)),
  repeat: m(1, 1, (s, a, site) => repeat(s, count(a[0]!, "the count", site), site)),
  padStart: m(1, 2, (s, a, site) => {
    const fill = a.length > 1 ? str(a[1]!, "the fill", site) : " ";
    return padding(s, count(a[0]!, "the length", site), fill, site) + s;
  }),
  padEnd: m(1, 2, (s, a, site) => {
    const fill = a.length > 1 ? str(a[1]!, "the fill", site) : " ";
    return s + padding(s, count(a[0]!, "the length", site), fill, site);
  }),
  toUpperCase: m(0, 0, (s) => s.toUpperCase()),
  toLowerCase: m(0, 0, (s) => s.toLowerCase()),
  lines: m(0, 0, (s, _a, site) => splitLinesChecked(s, site)),
};
