/**
 * String methods (language.md §4). Positions and lengths count Unicode code points. Methods whose result can
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

/** The UTF-16 offset of code point `cp` of `s` (its length past the end). */
function offsetOf(s: string, cp: number): number {
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/** A code point position argument: an integer (fractions cut toward zero), `null`/absent → `dflt`. */
function position(v: Value | undefined, what: string, dflt: number, site: CallSite): number {
  if (v === undefined || v === null) return dflt;
  return Math.trunc(count(v, what, site));
}

/** JavaScript's `slice` rules on code points: negative counts from the end, clamped. */
function clampSlice(p: number, n: number): number {
  return p < 0 ? Math.max(n + p, 0) : Math.min(p, n);
}

/** The code points of `s` from `start` to `end` (code point positions, already clamped). */
function cut(s: string, start: number, end: number, site: CallSite): string {
  site.charge(s.length);
  if (end <= start) return "";
  const from = offsetOf(s, start);
  return s.slice(from, from + offsetOf(s.slice(from), end - start));
}

/** Code point index of the match of `sub` in `s` searched from code point `from` (or -1). */
function find(s: string, sub: string, from: number | undefined, last: boolean, site: CallSite): number {
  site.charge(s.length);
  let i: number;
  if (last) i = s.lastIndexOf(sub, from === undefined ? Infinity : from < 0 ? 0 : offsetOf(s, from));
  else i = s.indexOf(sub, from === undefined || from < 0 ? 0 : offsetOf(s, from));
  return i < 0 ? -1 : codePointLength(s.slice(0, i));
}

export const stringMethods: Record<string, MethodDef> = {
  trim: m(0, 0, (s) => s.trim()),
  trimStart: m(0, 0, (s) => s.trimStart()),
  trimEnd: m(0, 0, (s) => s.trimEnd()),
  indexOf: m(1, 2, (s, a, site) => find(s, str(a[0]!, "the text", site), a.length > 1 ? position(a[1], "the start", 0, site) : undefined, false, site)),
  lastIndexOf: m(1, 2, (s, a, site) => find(s, str(a[0]!, "the text", site), a.length > 1 ? position(a[1], "the start", 0, site) : undefined, true, site)),
  slice: m(0, 2, (s, a, site) => {
    const n = codePointLength(s);
    return cut(s, clampSlice(position(a[0], "the start", 0, site), n), clampSlice(position(a[1], "the end", n, site), n), site);
  }),
  substring: m(1, 2, (s, a, site) => {
    const n = codePointLength(s);
    const clamp = (p: number) => Math.min(Math.max(p, 0), n);
    const x = clamp(position(a[0], "the start", 0, site));
    const y = clamp(position(a[1], "the end", n, site));
    return cut(s, Math.min(x, y), Math.max(x, y), site);
  }),
  startsWith: m(1, 1, (s, a, site) => s.startsWith(str(a[0]!, "the prefix", site))),
  endsWith: m(1, 1, (s, a, site) => s.endsWith(str(a[0]!, "the suffix", site))),
  includes: m(1, 1, (s, a, site) => s.includes(str(a[0]!, "the text", site))),
  split: m(0, 1, (s, a, site) => {
    if (a.length === 0) return [s];
    const sep = str(a[0]!, "the separator", site);
    checkPieces(s, sep, site);
    return sep === "" ? Array.from(s) : s.split(sep);
  }),
  /** Replaces the first occurrence, literally. */
  replace: m(2, 2, (s, a, site) => {
    const pat = str(a[0]!, "the pattern", site);
    const rep = str(a[1]!, "the replacement", site);
    site.charge(s.length);
    const i = s.indexOf(pat);
    if (i < 0) return s;
    site.checkString(s.length - pat.length + rep.length);
    return s.slice(0, i) + rep + s.slice(i + pat.length);
  }),
  /** Replaces every occurrence, literally. */
  replaceAll: m(2, 2, (s, a, site) => replaceAll(s, str(a[0]!, "the pattern", site), str(a[1]!, "the replacement", site), site)),
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
