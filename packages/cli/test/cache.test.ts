// The parse cache (packages/cli/src/cache.ts, docs/cli.md "The cache"): a cached run or check
// must be indistinguishable from a cold one (same output, same diagnostics at the same
// positions), and a cache entry that is not sound must be ignored and rewritten. In process;
// the binary's side (flags, environment, check, imports changing) is cache-cli.test.ts.
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "@patchwork/parser";
import { createNodeHost, run } from "@patchwork/interpreter";
import { runParsed } from "@patchwork/interpreter/core";
import { ParseCache } from "../src/cache.js";
import { loadProgram } from "../src/programs.js";
import { repoRoot, tempFiles } from "./helpers.js";

const fixtures = join(repoRoot, "packages", "interpreter", "test", "fixtures");
const corpusDirs = [fixtures, join(repoRoot, "packages", "parser", "test", "fixtures"), join(repoRoot, "examples")];
function pwFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...pwFiles(p));
    else if (name.endsWith(".pw")) out.push(p);
  }
  return out;
}
const corpus = corpusDirs.flatMap(pwFiles);

const dirs: string[] = [];
function freshCache(): ParseCache {
  const dir = mkdtempSync(join(tmpdir(), "pw-cache-"));
  dirs.push(dir);
  return ParseCache.open({ build: "test", env: { PATCHWORK_CACHE_DIR: dir } })!;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
});

/** An empty working directory for a run (fixtures write files), as golden.ts gives; the same path each time. */
let scratchDir: string | undefined;
function scratch(): string {
  if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
  else scratchDir = join(tmpdir(), `pw-cache-run-${process.pid}`);
  mkdirSync(scratchDir);
  return scratchDir;
}

/** A run through loadProgram (the CLI's path), as data to compare. */
async function runVia(file: string, cache: ParseCache | null) {
  const text = readFileSync(file, "utf8");
  const cwd = scratch();
  const { program, diagnostics, parseModule } = await loadProgram(file, text, cwd, cache);
  const host = createNodeHost({ cwd, stdout: () => {}, stderr: () => {} });
  const r = runParsed(program, diagnostics, { fileName: file, cwd, host }, parseModule);
  return { ok: r.ok, value: r.value, output: r.output, diagnostics: r.diagnostics };
}

describe("a cached parse is the parse", () => {
  it("over the corpus: the AST and diagnostics from the cache equal the parser's, for whole files and their prefixes", async () => {
    expect(corpus.length).toBeGreaterThan(50);
    const cache = freshCache();
    await fc.assert(
      fc.asyncProperty(fc.nat(corpus.length - 1), fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean(), async (i, cut, whole) => {
        const full = readFileSync(corpus[i]!, "utf8");
        const text = whole ? full : full.slice(0, Math.floor(full.length * cut));
        const file = join(dirname(corpus[i]!), `cut-${i}.pw`);
        const cold = parse(text, { fileName: file });
        const first = await loadProgram(file, text, dirname(file), cache); // writes the entry
        const second = await loadProgram(file, text, dirname(file), cache); // reads it
        for (const got of [first, second]) {
          expect(got.program).toEqual(cold.program);
          expect(got.diagnostics).toEqual(cold.diagnostics);
        }
        expect(JSON.stringify(second.program)).toBe(JSON.stringify(cold.program));
      }),
      { numRuns: 60 },
    );
  });

  it("every interpreter fixture runs alike cold, from the cache, and with run(): same output, value and diagnostics (positions included)", async () => {
    const cache = freshCache();
    const files = pwFiles(fixtures).filter((f) => !/receive_timeout|workers/.test(f));
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const cwd = scratch();
      const plain = run(text, { fileName: file, cwd, host: createNodeHost({ cwd, stdout: () => {}, stderr: () => {} }) });
      const expected = { ok: plain.ok, value: plain.value, output: plain.output, diagnostics: plain.diagnostics };
      expect({ file, ...(await runVia(file, null)) }).toEqual({ file, ...expected });
      expect({ file, ...(await runVia(file, cache)) }).toEqual({ file, ...expected }); // cold: fills the cache
      expect({ file, ...(await runVia(file, cache)) }).toEqual({ file, ...expected }); // warm
    }
    // The warm runs read entries for the files and the modules they import.
    expect(readdirSync(cache.dir).filter((n) => n.startsWith("ast-")).length).toBeGreaterThan(40);
  });
});

describe("the cache on disk", () => {
  it("ignores a truncated, corrupt or foreign entry, gives the cold result and rewrites it", async () => {
    const cache = freshCache();
    const d = tempFiles({ "a.pw": 'var x = 1\nprint("a ${x}")\n', "b.pw": 'print("b")\nvar y = 1 - "b"\n' });
    const a = join(d, "a.pw");
    const b = join(d, "b.pw");
    const coldA = await runVia(a, cache);
    const coldB = await runVia(b, cache);
    const entry = (file: string) => join(cache.dir, `ast-${cache.key("ast", [file, readFileSync(file, "utf8")])}.json`);
    const good = readFileSync(entry(a), "utf8");
    const spoilt = [
      good.slice(0, good.length - 7), // truncated
      good.replace('"x"', '"z"'), // payload changed, hash not
      good.slice(0, good.indexOf("\n")), // header only
      "not json\n{}",
      "",
      readFileSync(entry(b), "utf8"), // a sound entry of another key
    ];
    for (const bad of spoilt) {
      writeFileSync(entry(a), bad);
      expect(cache.get("ast", cache.key("ast", [a, readFileSync(a, "utf8")]))).toBeUndefined();
      expect(await runVia(a, cache)).toEqual(coldA);
      expect(readFileSync(entry(a), "utf8")).toBe(good);
    }
    expect(await runVia(b, cache)).toEqual(coldB);
    expect(readdirSync(cache.dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("keys entries by build: another build's entry is not read", () => {
    const dir = mkdtempSync(join(tmpdir(), "pw-cache-"));
    dirs.push(dir);
    const one = ParseCache.open({ build: "one", env: { PATCHWORK_CACHE_DIR: dir } })!;
    const two = ParseCache.open({ build: "two", env: { PATCHWORK_CACHE_DIR: dir } })!;
    one.put("ast", one.key("ast", ["f.pw", "x"]), { v: 1 });
    expect(one.get("ast", one.key("ast", ["f.pw", "x"]))).toEqual({ v: 1 });
    expect(two.get("ast", two.key("ast", ["f.pw", "x"]))).toBeUndefined();
    expect(one.get("ast", one.key("ast", ["g.pw", "x"]))).toBeUndefined();
  });

  it("is private: the directory 0700, entries 0600, and an entry owned by another user is not read", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pw-cache-")), "made");
    dirs.push(dirname(dir));
    const cache = ParseCache.open({ build: "b", env: { PATCHWORK_CACHE_DIR: dir } })!;
    const key = cache.key("ast", ["f.pw", "x"]);
    cache.put("ast", key, { v: 1 });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [entry] = readdirSync(dir);
    expect(statSync(join(dir, entry!)).mode & 0o777).toBe(0o600);
    expect(cache.get("ast", key)).toEqual({ v: 1 });
    if (process.getuid?.() !== 0) return; // only root can give a file to another user
    chownSync(join(dir, entry!), 1, 1);
    expect(cache.get("ast", key)).toBeUndefined();
  });

  it("prune removes its own entries not written for a while, and nothing else", () => {
    const cache = freshCache();
    const [k1, k2] = [cache.key("ast", ["1"]), cache.key("check", ["2"])];
    cache.put("ast", k1, { v: 1 });
    cache.put("check", k2, { v: 2 });
    writeFileSync(join(cache.dir, "notes.txt"), "mine");
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    utimesSync(join(cache.dir, `ast-${k1}.json`), old, old);
    utimesSync(join(cache.dir, "notes.txt"), old, old);
    cache.prune();
    expect(cache.get("ast", k1)).toBeUndefined();
    expect(cache.get("check", k2)).toEqual({ v: 2 });
    expect(readdirSync(cache.dir).sort()).toEqual([`check-${k2}.json`, "notes.txt"]);
  });

  it("binary entries (the parser's compiled code): read back exactly, checked like the others, pruned with them", () => {
    const cache = freshCache();
    const key = cache.key("code", ["parsing", "v20"]);
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) & 0xff));
    expect(cache.putBytes("code", key, bytes)).toBe(true);
    const file = join(cache.dir, `code-${key}.bin`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(cache.getBytes("code", key)).toEqual(bytes);
    expect(cache.getBytes("code", cache.key("code", ["parsing", "v22"]))).toBeUndefined();
    const good = readFileSync(file);
    for (const bad of [good.subarray(0, good.length - 1), Buffer.concat([good, Buffer.from([0])]), Buffer.from(good).fill(7, good.length - 10), Buffer.alloc(0)]) {
      writeFileSync(file, bad);
      expect(cache.getBytes("code", key)).toBeUndefined();
    }
    // An entry under another key's name (a file copied over) is not this key's.
    const other = cache.key("code", ["check-analysis", "v20"]);
    cache.putBytes("code", other, bytes);
    writeFileSync(file, readFileSync(join(cache.dir, `code-${other}.bin`)));
    expect(cache.getBytes("code", key)).toBeUndefined();
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    utimesSync(file, old, old);
    cache.prune();
    expect(readdirSync(cache.dir)).toEqual([`code-${other}.bin`]);
  });

  it("stores nothing JSON would change (NaN, Infinity, -0)", () => {
    const cache = freshCache();
    for (const [i, v] of [NaN, Infinity, -0].entries()) {
      cache.put("ast", cache.key("ast", [String(i)]), { v });
      expect(cache.get("ast", cache.key("ast", [String(i)]))).toBeUndefined();
    }
  });

  it("is off with PATCHWORK_NO_CACHE=1, --no-cache, and outside the bundle", () => {
    expect(ParseCache.open({ build: "b", env: { PATCHWORK_NO_CACHE: "1" } })).toBeNull();
    expect(ParseCache.open({ build: "b", noCache: true, env: {} })).toBeNull();
    expect(ParseCache.open({ env: {} })).toBeNull(); // the sources (vitest): no build id
    expect(ParseCache.open({ build: "b", env: { PATCHWORK_CACHE_DIR: "/x" } })?.dir).toBe("/x");
    expect(ParseCache.open({ build: "b", env: { XDG_CACHE_HOME: "/y" } })?.dir).toBe(join("/y", "patchwork"));
  });
});
