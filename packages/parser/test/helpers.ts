import { expect } from "vitest";
import { parse, type Diagnostic, type Program, type Span } from "../src/index.js";

/** A deep copy without `span` fields (and, optionally, other keys). */
export function strip<T>(value: T, drop: readonly string[] = ["span"]): T {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (drop.includes(k) ? undefined : v))) as T;
}

/** Parse, expecting no diagnostics at all. */
export function parseOk(source: string): Program {
  const { program, diagnostics } = parse(source);
  expect(diagnostics.map((d) => `${d.code} ${d.span.start.line}:${d.span.start.column} ${d.message}`)).toEqual([]);
  return program;
}

/** The first statement of a program, spans stripped. */
export function first(source: string): unknown {
  return strip(parseOk(source).body[0]);
}

/** The expression of `source` parsed as an expression statement, spans stripped. */
export function expr(source: string): unknown {
  const s = parseOk(source).body[0];
  if (!s || s.kind !== "ExprStmt") throw new Error(`not an expression statement: ${source}`);
  return strip(s.expr);
}

export function codes(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code}@${d.span.start.line}:${d.span.start.column}`);
}

/** Every span of the tree, with the path to its node. */
export function allSpans(node: unknown, path = "$", out: { path: string; span: Span }[] = []): { path: string; span: Span }[] {
  if (Array.isArray(node)) node.forEach((n, i) => allSpans(n, `${path}[${i}]`, out));
  else if (node !== null && typeof node === "object") {
    const o = node as Record<string, unknown>;
    if ("kind" in o) {
      if (!("span" in o)) throw new Error(`node without span at ${path}`);
      out.push({ path, span: o["span"] as Span });
    }
    for (const [k, v] of Object.entries(o)) if (k !== "span") allSpans(v, `${path}.${k}`, out);
  }
  return out;
}

/** Check that every span is well-formed and lies inside the source. */
export function checkSpans(program: Program, source: string): void {
  for (const { path, span } of allSpans(program)) {
    const { start, end } = span;
    if (!(start.offset >= 0 && start.offset <= end.offset && end.offset <= source.length)) {
      throw new Error(`bad span at ${path}: ${JSON.stringify(span)}`);
    }
    if (start.line < 1 || start.column < 1 || end.line < start.line) throw new Error(`bad position at ${path}`);
  }
}
