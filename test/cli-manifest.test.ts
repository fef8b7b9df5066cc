// The installable CLI package (docs/decisions/0009-bundled-cli.md): the bundle contains our
// workspace packages and keeps every npm package external, so each npm package the sources import must
// be a dependency of @patchwork/cli, pinned to the version the importing package pins. (The
// slow end-to-end check is npm run test:package.)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
/** Every workspace package: whatever the CLI imports of them is bundled. */
const PACKAGES = readdirSync(join(root, "packages")).filter((d) => statSync(join(root, "packages", d, "src"), { throwIfNoEntry: false })?.isDirectory());
/** Bundled by the parser's build (scripts/bundle-vendor.mjs), not needed at run time. */
const VENDORED = new Set(["chevrotain"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.ts$/.test(name) ? [path] : [];
  });
}

/** npm package names a source file imports at run time (type-only imports excluded). */
export function runtimeImports(text: string): string[] {
  const found = new Set<string>();
  const re = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s*)?["']([^"'./][^"']*)["']|import\(\s*["']([^"'./][^"']*)["']\s*\)|createRequire\([^)]*\)\(\s*["']([^"'./][^"']*)["']\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (spec.startsWith("node:")) continue;
    found.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
  }
  return [...found];
}

describe("the CLI package's dependencies", () => {
  it("recognises the import forms that load a package at run time", () => {
    expect(runtimeImports('import { z } from "zod";\nimport type { X } from "yargs";')).toEqual(["zod"]);
    expect(runtimeImports('export * from "@a/b/sub";\nconst m = await import("c");')).toEqual(["@a/b", "c"]);
    expect(runtimeImports('createRequire(import.meta.url)("zod")\nimport "./local.js";')).toEqual(["zod"]);
  });

  it("list every npm package the sources import, at the version its package pins", () => {
    const cli = JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8"));
    const problems: string[] = [];
    for (const pkg of PACKAGES) {
      const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8"));
      const pinned = { ...manifest.devDependencies, ...manifest.dependencies };
      for (const file of sourceFiles(join(root, "packages", pkg, "src"))) {
        for (const name of runtimeImports(readFileSync(file, "utf8"))) {
          if (name.startsWith("@patchwork/") || VENDORED.has(name)) continue;
          if (cli.dependencies?.[name] === undefined) problems.push(`${file}: ${name} is not a dependency of @patchwork/cli`);
          else if (pinned[name] !== undefined && pinned[name] !== cli.dependencies[name]) {
            problems.push(`${name}: @patchwork/${pkg} pins ${pinned[name]}, @patchwork/cli ${cli.dependencies[name]}`);
          }
        }
      }
    }
    expect([...new Set(problems)]).toEqual([]);
  });

  it("name no workspace package as a run-time dependency (they are bundled, and not published)", () => {
    const cli = JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8"));
    expect(Object.keys(cli.dependencies).filter((d) => d.startsWith("@patchwork/"))).toEqual([]);
  });
});
