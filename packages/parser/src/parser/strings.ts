/** Helpers for string literals: escapes and plain values. */
import type { StringLit } from "../ast.js";

const escapes: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  '"': '"',
  "'": "'",
  $: "$",
  "0": "\0",
  "{": "{",
  "}": "}",
};

/** The text of an escape sequence such as `\n`; an unknown escape keeps both characters. */
export function unescape(seq: string): string {
  return escapes[seq.charAt(1)] ?? seq;
}

/** The character of a `$'c'` literal. */
export function charLiteralValue(image: string): string {
  return image.slice(2, -1);
}

/** The value of a string without interpolation, or null if it interpolates. */
export function stringValue(s: StringLit): string | null {
  let out = "";
  for (const p of s.parts) {
    if (p.kind !== "Text") return null;
    out += p.value;
  }
  return out;
}
