/** Shared checks of the formatter's properties (used by the corpus and generated-program tests). */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { format, parse } from "../../src/index.js";

/** The repository's root. */
export const repoRoot = join(import.meta.dirname, "../../../..");

/** Every `.pw` file of the corpus: examples/ and the packages' test fixtures (repo-relative). */
export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".pw")) out.push(relative(repoRoot, p));
    }
  };
  walk(join(repoRoot, "examples"));
  for (const pkg of readdirSync(join(repoRoot, "packages"))) {
    const fixtures = join(repoRoot, "packages", pkg, "test", "fixtures");
    try {
      walk(fixtures);
    } catch {
      // no fixtures in this package
    }
  }
  return out.sort();
}

/** The AST without spans (spans are the one thing formatting may change). */
export function shape(source: string): string {
  return JSON.stringify(parse(source).program, (k, v) => (k === "span" ? undefined : v));
}

export interface Roundtrip {
  out: string;
  problems: string[];
}

/** Formats `source` and lists every property that does not hold. */
export function roundtrip(source: string): Roundtrip {
  const r = format(source);
  if (!r.ok) return { out: source, problems: [`not formatted: ${r.diagnostics.map((d) => `${d.code} ${d.message}`).join("; ")}`] };
  const problems: string[] = [];
  const out = r.text;
  const again = format(out);
  if (!again.ok) problems.push(`output does not parse: ${again.diagnostics.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.message}`).join("; ")}`);
  else if (again.text !== out) problems.push("not idempotent");
  if (shape(out) !== shape(source)) problems.push("AST changed");
  const before = parse(source).comments.map((c) => c.text);
  const after = parse(out).comments.map((c) => c.text);
  if (JSON.stringify(before) !== JSON.stringify(after)) problems.push(`comments changed: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  return { out, problems };
}
