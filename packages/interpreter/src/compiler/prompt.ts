/**
 * Rendering the prompt of a think/ask (the exact text an agent receives).
 *
 * - The prompt text is dedented: the common indentation of its lines is removed and
 *   leading and trailing blank lines are dropped. Text on the line of the opening brace
 *   loses its leading spaces and does not count for the indentation; trailing spaces
 *   before the closing brace are dropped. Indentation is measured on the text as
 *   written; interpolated values are inserted as they are (never re-indented).
 * - `$name` / `${…}` insert the value as text, `$@{…}` an array joined with ", ".
 * - Each `do` block stays in place, preceded by a line `[do N]` with its child number,
 *   followed by its source exactly as written.
 * - With children, a note on the `do` tool follows after a blank line; a typed think adds
 *   the answer-format instruction after that (see think.ts).
 * - Threadbare thinks (`verbatim`) use the prompt text exactly as given.
 */
import type { PromptPart, ThinkExpr } from "@patchwork/parser";
import { toText, type Value } from "../values.js";
import { compileExpr } from "./expr.js";
import type { Cx } from "./scope.js";

type Seg = string | ((f: Value[]) => string);

export const DO_NOTE =
  'The numbered `do` blocks above are code you can run: call the `do` tool with {"number": N} to run block N; it returns what the block prints.';

function interp(part: PromptPart & { kind: "PromptInterp" }, cx: Cx): (f: Value[]) => string {
  const v = compileExpr(part.expr, cx);
  return (f) => toText(v(f));
}

/** Splits the prompt into lines of segments; `do` blocks become literal text. */
function toLines(parts: PromptPart[], cx: Cx): Seg[][] {
  const lines: Seg[][] = [[]];
  const pushText = (text: string) => {
    const chunks = text.split("\n");
    chunks.forEach((c, i) => {
      if (i > 0) lines.push([]);
      if (c.length) lines[lines.length - 1]!.push(c);
    });
  };
  for (const p of parts) {
    if (p.kind === "PromptText") pushText(p.value);
    else if (p.kind === "PromptInterp") lines[lines.length - 1]!.push(interp(p, cx));
    else {
      const line = lines[lines.length - 1]!;
      const lead = line.every((s) => typeof s === "string" && /^[ \t]*$/.test(s)) ? (line as string[]).join("") : "";
      pushText(`[do ${p.index}]\n${lead}${p.source}`);
    }
  }
  return lines;
}

function isBlank(line: Seg[]): boolean {
  return line.every((s) => typeof s === "string" && /^[ \t\r]*$/.test(s));
}

function indentOf(line: Seg[]): number {
  const first = line[0];
  if (typeof first !== "string") return 0;
  return /^[ \t]*/.exec(first)![0].length;
}

/** Compiles the prompt into a function producing the rendered text. */
export function compilePromptText(e: ThinkExpr, cx: Cx): (f: Value[]) => string {
  if (e.verbatim) return join(e.prompt.filter((p) => p.kind !== "DoRef").map((p) => (p.kind === "PromptText" ? p.value : interp(p as PromptPart & { kind: "PromptInterp" }, cx))));
  const lines = toLines(e.prompt, cx);
  // Text on the line of the opening brace (`think { Summarize …`) is not indented text:
  // its leading spaces go, and it does not count for the common indentation.
  const firstInline = lines.length > 0 && !isBlank(lines[0]!);
  let start = 0;
  let end = lines.length;
  while (start < end && isBlank(lines[start]!)) start++;
  while (end > start && isBlank(lines[end - 1]!)) end--;
  const kept = lines.slice(start, end);
  const measured = kept.filter((l, i) => !isBlank(l) && !(firstInline && i === 0));
  const common = measured.length ? Math.min(...measured.map(indentOf)) : 0;
  const segs: Seg[] = [];
  kept.forEach((line, i) => {
    if (i > 0) segs.push("\n");
    if (isBlank(line)) return;
    const cut = firstInline && i === 0 ? indentOf(line) : common;
    const last = i === kept.length - 1;
    line.forEach((s, j) => {
      let t = s;
      if (typeof t === "string") {
        if (j === 0) t = t.slice(cut);
        // Spaces before the closing brace are not part of the text.
        if (last && j === line.length - 1) t = t.replace(/[ \t]+$/, "");
      }
      segs.push(t);
    });
  });
  return join(segs);
}

function join(segs: Seg[]): (f: Value[]) => string {
  // Merge adjacent literals.
  const merged: Seg[] = [];
  for (const s of segs) {
    const last = merged[merged.length - 1];
    if (typeof s === "string" && typeof last === "string") merged[merged.length - 1] = last + s;
    else merged.push(s);
  }
  if (merged.length === 0) return () => "";
  if (merged.length === 1 && typeof merged[0] === "string") {
    const s = merged[0];
    return () => s;
  }
  return (f) => {
    let out = "";
    for (const s of merged) out += typeof s === "string" ? s : s(f);
    return out;
  };
}
