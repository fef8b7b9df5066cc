// Node's compile cache for main.ts's ES modules (compile-cache.ts, decision 0024), as the
// `patchwork` binary uses it: from Node 22 the launcher turns it on in the cache directory before
// it imports main.ts, so that a later process takes the bundle's compiled code from there; the
// cache's off switches turn it off; a directory others may write to is not used. Node 20 has no
// such cache: nothing is written. (CI runs this suite under Node 20, 22 and 24.) `NODE_DEBUG_NATIVE=
// COMPILE_CACHE` is Node's own account of each module's entry. An end-to-end suite (test/suites.ts).
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, tempFiles } from "./helpers.js";

const hasCompileCache = typeof (await import("node:module") as { enableCompileCache?: unknown }).enableCompileCache === "function";

/**
 * `patchwork fmt --check hello.pw` (a command main.ts answers) with the cache in `cacheDir`;
 * with `args`, `patchwork run hello.pw --trace FILE ARGS…` (main.ts's too: the trace).
 */
function fmt(cacheDir: string, extra: { args?: string[]; env?: Record<string, string> } = {}) {
  const d = tempFiles({ "hello.pw": 'print("Hello")\n' });
  const file = join(d, "hello.pw");
  const command = extra.args ? ["run", file, "--trace", join(d, "trace.jsonl"), ...extra.args] : ["fmt", "--check", file];
  const r = patchwork(command, {
    env: { PATCHWORK_CACHE_DIR: cacheDir, PATCHWORK_NO_CACHE: undefined, PATCHWORK_DEBUG: "compile-cache", NODE_DEBUG_NATIVE: "COMPILE_CACHE", ...extra.env },
  });
  expect(r.status).toBe(0);
  const ours = r.stderr.split("\n").filter((l) => l.startsWith("patchwork: node compile cache: "));
  return { ...r, line: ours.map((l) => l.slice("patchwork: node compile cache: ".length)).join("\n") };
}

/** Node's compiled-code entries under the directory (one subdirectory per Node version). */
function entries(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
}

// (Node 24 says "V8 code cache for ESM file:…", Node 22 "cache for file:…".)
const INDEX_ACCEPTED = /cache for (ESM )?file:\/\/\S*\/bundle\/index\.js was accepted/;

const withCache = `Node's compile cache (Node ${process.version})`;
describe.runIf(hasCompileCache)(hasCompileCache ? withCache : `${withCache} (skipped: this Node has none; CI runs it under Node 22 and 24)`, () => {
  it("is written by the first process that loads main.ts's modules, in the cache directory (0700), and used by the next", () => {
    const cacheDir = join(tempFiles({}), "cache");
    const dir = join(cacheDir, "node-compile-cache");
    const first = fmt(cacheDir);
    expect(first.line).toBe(dir);
    expect(first.stderr).not.toMatch(INDEX_ACCEPTED);
    expect(entries(dir).length).toBeGreaterThan(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const second = fmt(cacheDir);
    expect(second.stderr).toMatch(INDEX_ACCEPTED);
    expect(second.stdout).toBe(first.stdout);
  });

  it("--no-cache and PATCHWORK_NO_CACHE=1 turn it off: nothing written", () => {
    const cacheDir = join(tempFiles({}), "cache");
    expect(fmt(cacheDir, { args: ["--no-cache"] }).line).toBe("off");
    expect(fmt(cacheDir, { args: [], env: { PATCHWORK_NO_CACHE: "1" } }).line).toBe("off");
    expect(fmt(cacheDir, { env: { PATCHWORK_NO_CACHE: "1" } }).line).toBe("off");
    expect(existsSync(join(cacheDir, "node-compile-cache"))).toBe(false);
  });

  it("a directory that others may write to is not used (they could plant compiled code)", () => {
    const cacheDir = join(tempFiles({}), "cache");
    const dir = join(cacheDir, "node-compile-cache");
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    const r = fmt(cacheDir);
    expect(r.line).toBe(`${dir} is not this user's alone`);
    expect(entries(dir)).toEqual([]);
  });
});

const without = `a Node without a compile cache (Node 20; this is ${process.version})`;
describe.runIf(!hasCompileCache)(hasCompileCache ? `${without} (skipped: this Node has one; CI runs it under Node 20)` : without, () => {
  it("the launcher says so and writes nothing", () => {
    const cacheDir = join(tempFiles({}), "cache");
    const r = fmt(cacheDir);
    expect(r.line).toBe(`not in Node ${process.version}`);
    expect(existsSync(join(cacheDir, "node-compile-cache"))).toBe(false);
  });
});
