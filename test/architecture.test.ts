// Package dependencies point one way: parser ← interpreter ← analysis ← agent ← fleet ← serve ← language-server ← cli.
// This test fails if any package imports (or depends on) one that sits above it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
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
