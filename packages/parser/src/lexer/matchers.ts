/**
 * Custom token matchers: the few places where a regular expression cannot decide alone.
 * They see the text and the tokens matched so far; only the `$(` matchers keep state (a cache
 * of its scans of the current text, see `closingParen`).
 */
import type { IToken } from "../chevrotain.js";

/**
 * Token types (by `tokenTypeIdx`) after which a newline does not end the statement:
 * binary operators, `,`, `(`, `[`, `{`, `.`, and newlines themselves (so they collapse).
 * Filled in by `lexer.ts` once all token types exist.
 */
export const continuesLine: boolean[] = [];

function isIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** True when the next code after `offset` (skipping blanks, newlines and `#` / `//` comments) is `else`. */
function elseFollows(text: string, offset: number): boolean {
  let i = offset;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) i++;
    else if (c === 35 /* # */ || (c === 47 /* / */ && text.charCodeAt(i + 1) === 47)) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
    } else break;
  }
  return (
    text.charCodeAt(i) === 101 &&
    text.startsWith("else", i) &&
    !isIdentChar(text.charCodeAt(i + 4))
  );
}

/** A significant newline: not after a continuation token, not before `else`. */
export function matchNewline(text: string, offset: number, tokens: IToken[]): [string] | null {
  const c = text.charCodeAt(offset);
  if (c !== 10 && c !== 13) return null;
  const last = tokens[tokens.length - 1];
  if (last !== undefined && continuesLine[last.tokenTypeIdx] === true) return null;
  const len = c === 13 && text.charCodeAt(offset + 1) === 10 ? 2 : 1;
  if (elseFollows(text, offset + len)) return null;
  return [len === 1 ? (c === 10 ? "\n" : "\r") : "\r\n"];
}

/** Only blanks between the start of the line and `offset`? */
function lineLeading(text: string, offset: number): boolean {
  let i = offset - 1;
  while (i >= 0) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return true;
    if (c !== 32 && c !== 9) return false;
    i--;
  }
  return true;
}

function matchDo(text: string, offset: number, open: number): [string] | null {
  if (text.charCodeAt(offset + 1) !== 111 /* o */) return null;
  let i = offset + 2;
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  if (text.charCodeAt(i) !== open || !lineLeading(text, offset)) return null;
  return [text.slice(offset, i + 1)];
}

/** `do {` as the first word of a prompt line. */
export function matchPromptDo(text: string, offset: number): [string] | null {
  return text.charCodeAt(offset) === 100 ? matchDo(text, offset, 123 /* { */) : null;
}

/** `do <` as the first word of a prompt line. */
export function matchPromptDoAngle(text: string, offset: number): [string] | null {
  return text.charCodeAt(offset) === 100 ? matchDo(text, offset, 60 /* < */) : null;
}

/**
 * The closing `)` of each `(` seen outside quotes by an earlier `$(` scan of the same text
 * (-1: unclosed). The close of a `(` depends only on the text after it, so a later scan that
 * meets a known `(` jumps over it: every `$(` in a text costs linear time in total, where a
 * fresh scan from each unterminated `$(` would be quadratic (64k nested: seconds).
 */
let scannedText: string | undefined;
let closeOf = new Map<number, number>();

/** Forget the scans of the previous text (the lexer calls this before each input). */
export function resetShellParenScans(): void {
  scannedText = undefined;
  closeOf = new Map();
}

/** The offset of the `)` closing the `(` at `open`, outside quotes as sh reads them, or -1. */
function closingParen(text: string, open: number): number {
  if (text !== scannedText) {
    resetShellParenScans();
    scannedText = text;
  }
  const opens: number[] = [];
  let quote = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 92 /* \ */ && quote === 34) i++;
      else if (c === quote) quote = 0;
    } else if (c === 39 || c === 34) quote = c;
    else if (c === 92) i++;
    else if (c === 40 /* ( */) {
      const known = closeOf.get(i);
      if (known === undefined) opens.push(i);
      else if (known >= 0 && opens.length > 0) i = known;
      else if (known >= 0) return known;
      else break;
    } else if (c === 41 /* ) */ && opens.length > 0) {
      const o = opens.pop()!;
      closeOf.set(o, i);
      if (opens.length === 0) return i;
    }
  }
  for (const o of opens) closeOf.set(o, -1);
  return -1;
}

/**
 * `$(` (and `$((`) in a shell word that some `)` closes: it opens a nested command. One that
 * nothing closes is not matched here; it becomes reported text (ShellDollarParenOpen), so a
 * typo does not swallow the rest of the file.
 */
export function matchShellSubOpen(text: string, offset: number): [string] | null {
  if (text.charCodeAt(offset) !== 36 || text.charCodeAt(offset + 1) !== 40) return null;
  return closingParen(text, offset + 1) < 0 ? null : ["$("];
}

export function matchShellArithOpen(text: string, offset: number): [string] | null {
  if (text.charCodeAt(offset + 2) !== 40 || matchShellSubOpen(text, offset) === null) return null;
  return closingParen(text, offset + 2) < 0 ? null : ["$(("];
}

/**
 * A backquote that a later unescaped backquote closes (sh ends backquotes at the first one,
 * quotes notwithstanding). Linear overall: an unclosed backquote has no backquote after it.
 */
export function matchShellBQOpen(text: string, offset: number): [string] | null {
  if (text.charCodeAt(offset) !== 96) return null;
  for (let i = offset + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 96) return ["`"];
  }
  return null;
}

/**
 * A standalone `}` word in a `$ ` line closes the enclosing block (`if x { $ ls }`), unless
 * the line opened a shell group with a standalone `{` word.
 */
export function matchShellRBrace(text: string, offset: number, tokens: IToken[]): [string] | null {
  if (text.charCodeAt(offset) !== 125) return null;
  const before = text.charCodeAt(offset - 1);
  if (before !== 32 && before !== 9) return null;
  const after = text.charCodeAt(offset + 1);
  if (!(Number.isNaN(after) || after === 32 || after === 9 || after === 10 || after === 13 || after === 59)) {
    return null;
  }
  let depth = 0;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i]!;
    if (t.tokenType.name === "ShellLineStartCode") break;
    if (t.image === "{") depth++;
    else if (t.image === "}") depth--;
  }
  return depth > 0 ? null : ["}"];
}

/**
 * A run of characters up to (not including) one of `stops`: the text tokens of strings,
 * prompts and shell words. Written as a matcher (not a negated regex class) so that every
 * lexer mode keeps Chevrotain's first-character optimization.
 */
export function runUntil(stops: string): (text: string, offset: number) => [string] | null {
  const stop = new Uint8Array(128);
  for (let i = 0; i < stops.length; i++) stop[stops.charCodeAt(i)] = 1;
  return (text, offset) => {
    const n = text.length;
    let i = offset;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128 && stop[c] === 1) break;
      i++;
    }
    return i > offset ? [text.slice(offset, i)] : null;
  };
}

/**
 * Above 255 Chevrotain dispatches on buckets of ~256 code units: one member of each bucket
 * suffices (the boundaries of both 255- and 256-wide buckets are listed), in ascending order.
 * The same for every token: computed once (a loop over all 65,536 code units per token was a
 * few milliseconds of every cold start).
 */
const aboveLatin1: number[] = (() => {
  // 256, the multiples of 255 and of 256 from 510 and 512 up to 0xffff, and 0xffff, in order and
  // once each (two sorted sequences merged: a Set and a sort cost ≈ 1 ms on a cold start).
  const codes = [256];
  let a = 255 * 2;
  let b = 256 * 2;
  while (a <= 0xffff || b <= 0xffff) {
    const next = Math.min(a, b);
    codes.push(next);
    if (a === next) a += 255;
    if (b === next) b += 256;
  }
  if (codes[codes.length - 1] !== 0xffff) codes.push(0xffff);
  return codes;
})();

/** Latin-1's upper half and `aboveLatin1`: the end of every `startCharsExcept` list. */
const nonAscii: number[] = (() => {
  const out: number[] = [];
  for (let c = 128; c < 256; c++) out.push(c);
  return out.concat(aboveLatin1);
})();

/** Every UTF-16 code unit except `stops`: the start characters of a `runUntil` token. */
export function startCharsExcept(stops: string): number[] {
  const out: number[] = [];
  for (let c = 0; c < 128; c++) if (stops.indexOf(String.fromCharCode(c)) < 0) out.push(c);
  return out.concat(nonAscii);
}
