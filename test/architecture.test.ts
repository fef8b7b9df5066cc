// Package dependencies point one way: parser ← interpreter ← analysis ← agent ← fleet ← serve ← language-server ← cli.
// This test fails if any package imports (or depends on) one that sits above it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ORDER = ["parser", "interpreter", "analysis", "agent", "fleet", "serve", "language-server", "cli"] as const;
const root = join(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

/** `@patchwork/<name>` specifiers imported or re-exported by a file. */
export function patchworkImports(text: string): string[] {
  const found = new Set<string>();
  const re = /(?:from\s*|import\s*\(?\s*)["']@patchwork\/([a-z-]+)(?:\/[^"']*)?["']/g;
  for (const m of text.matchAll(re)) found.add(m[1]!);
  return [...found];
}

describe("package layering", () => {
  it("recognises the import forms it polices", () => {
    expect(patchworkImports(`import { x } from "@patchwork/agent";`)).toEqual(["agent"]);
    expect(patchworkImports(`export * from '@patchwork/cli/deep';`)).toEqual(["cli"]);
    expect(patchworkImports(`await import("@patchwork/parser")`)).toEqual(["parser"]);
    expect(patchworkImports(`import "./local.js"`)).toEqual([]);
  });

  for (const [level, pkg] of ORDER.entries()) {
    it(`${pkg} imports only packages below it`, () => {
      const allowed = new Set(ORDER.slice(0, level));
      const offenders: string[] = [];
      for (const file of sourceFiles(join(root, "packages", pkg, "src"))) {
        for (const dep of patchworkImports(readFileSync(file, "utf8"))) {
          if (!allowed.has(dep as (typeof ORDER)[number])) offenders.push(`${file}: @patchwork/${dep}`);
        }
      }
      expect(offenders).toEqual([]);
    });

    it(`${pkg}/package.json depends only on packages below it`, () => {
      const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8"));
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
      const upward = deps
        .filter((d) => d.startsWith("@patchwork/"))
        .map((d) => d.slice("@patchwork/".length))
        .filter((d) => !ORDER.slice(0, level).includes(d as (typeof ORDER)[number]));
      expect(upward).toEqual([]);
    });
  }

  it("the interpreter knows nothing of ACP or MCP", () => {
    const offenders = sourceFiles(join(root, "packages", "interpreter", "src")).filter((f) =>
      /from\s*["']@(agentclientprotocol|modelcontextprotocol)\//.test(readFileSync(f, "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});

/**
 * The files a source file imports, by relative specifier (`from "./x.js"`, `import("./x.js")`,
 * `export … from`, type-only imports too: a type that goes round is a circle as well).
 */
export function relativeImports(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = resolve(dirname(file), m[1]!).replace(/\.js$/, ".ts");
    found.add(target.endsWith(".ts") ? target : `${target}.ts`);
  }
  return [...found];
}

/** The strongly connected components of more than one file (Tarjan's algorithm). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * The one circle allowed: the compiler's own recursion (an expression holds statements, calls,
 * patterns… that hold expressions), every file of it in packages/interpreter/src/compiler/.
 */
const COMPILER = "packages/interpreter/src/compiler/";
const isCompilerRecursion = (files: string[]) => files.includes(`${COMPILER}expr.ts`) && files.every((f) => f.startsWith(COMPILER));

describe("file imports", () => {
  it("finds a circle, and only a circle", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
    ]);
    expect(circles(graph)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(relativeImports("/p/src/a.ts", `import type { X } from "./b.js";\nexport * from "../c.js";\nawait import("./d/e.js");`)).toEqual([
      "/p/src/b.ts",
      "/p/c.ts",
      "/p/src/d/e.ts",
    ]);
  });

  it("no files of a package import each other in a circle, except the compiler's recursion", () => {
    const graph = new Map<string, string[]>();
    for (const pkg of ORDER) {
      for (const file of sourceFiles(join(root, "packages", pkg, "src")).filter((f) => /\.m?ts$/.test(f) && !f.endsWith(".d.ts"))) {
        graph.set(relative(root, file), relativeImports(file, readFileSync(file, "utf8")).map((t) => relative(root, t)));
      }
    }
    const found = circles(graph);
    expect(found.filter(isCompilerRecursion)).toHaveLength(1);
    expect(found.filter((c) => !isCompilerRecursion(c))).toEqual([]);
  });
});
