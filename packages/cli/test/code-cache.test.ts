// The V8 code cache of the parser's scripts (cache.ts `loadScript`, decision 0017), as the `patchwork`
// binary uses it: the first run after an edit (its parse not cached) compiles the parser from the
// cached code; a corrupt, truncated or foreign entry, or one of another Node version, is not used
// and is replaced; the off switches. `PATCHWORK_DEBUG=code-cache` says, per script, how it was
// compiled. An end-to-end suite (test/suites.ts): a process per command.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

const HELLO = 'var name = "world"\nprint("Hello, ${name}!")\n';

/** A run of a program no cache has seen (a new comment each time), with the debug lines. */
let edits = 0;
function runEdited(cacheDir: string, extra: { args?: string[]; env?: Record<string, string>; command?: string } = {}) {
  const d = tempFiles({ "hello.pw": `# edit ${++edits}\n${HELLO}` });
  const r = patchwork([extra.command ?? "run", join(d, "hello.pw"), ...(extra.args ?? [])], {
    env: { PATCHWORK_CACHE_DIR: cacheDir, PATCHWORK_NO_CACHE: undefined, PATCHWORK_DEBUG: "code-cache", ...extra.env },
  });
  const all = r.stderr.split("\n").filter((l) => l.startsWith("patchwork: code cache: ")).map((l) => l.slice("patchwork: code cache: ".length));
  // "NAME: entry code-KEY.bin": which entry each script's code cache is.
  const entries: Record<string, string> = {};
  for (const l of all) {
    const m = /^([\w-]+): entry (code-[0-9a-f]{64}\.bin)$/.exec(l);
    if (m) entries[m[1]!] = m[2]!;
  }
  const status = all.filter((l) => !/: entry /.test(l));
  lastEntries = { ...lastEntries, ...entries };
  return {
    ...r,
    // The parser's scripts (parsing, check-analysis); the fast-commands script's lines apart (decision 0018).
    lines: status.filter((l) => !l.startsWith("fast-commands: ")),
    fast: status.filter((l) => l.startsWith("fast-commands: ")),
    entries,
    other: r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("patchwork: code cache: ")),
  };
}

const codeEntries = (dir: string) => readdirSync(dir).filter((n) => /^code-[0-9a-f]{64}\.bin$/.test(n));

/** The entry of the parser's script `name` (as the last run of it named it): path, header and payload. */
let lastEntries: Record<string, string> = {};
function entry(dir: string, name = "parsing") {
  const file = lastEntries[name];
  expect(file).toBeDefined();
  expect(codeEntries(dir)).toContain(file);
  const path = join(dir, file!);
  const data = readFileSync(path);
  const nl = data.indexOf(10);
  return { path, header: JSON.parse(data.subarray(0, nl).toString("utf8")), payload: data.subarray(nl + 1) };
}

/** Writes an entry with a sound header (length and SHA-256 right) around `payload`. */
function plant(path: string, key: string, payload: Buffer): void {
  const header = JSON.stringify({ format: 1, key, sha256: createHash("sha256").update(payload).digest("hex"), bytes: payload.length });
  writeFileSync(path, Buffer.concat([Buffer.from(`${header}\n`), payload]), { mode: 0o600 });
}

describe("the parser's code cache", () => {
  it("is written by the first cold run and used by the next one (a file's first run after an edit)", () => {
    const cache = join(tempFiles({}), "cache");
    const first = runEdited(cache);
    expect(first.stdout).toBe("Hello, world!\n");
    expect(first.lines).toEqual(["parsing: missing", "parsing: written"]);
    const { path, header, payload } = entry(cache);
    expect(header.bytes).toBe(payload.length);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    const second = runEdited(cache);
    expect(second.stdout).toBe("Hello, world!\n");
    expect(second.lines).toEqual(["parsing: used"]);
    expect(second.other).toEqual([]);
    // A warm run (its parse cached) loads no parser at all.
    const d = tempFiles({ "w.pw": HELLO });
    const env = { PATCHWORK_CACHE_DIR: cache, PATCHWORK_DEBUG: "code-cache" };
    patchwork(["run", join(d, "w.pw")], { env });
    const warm = patchwork(["run", join(d, "w.pw")], { env });
    expect({ status: warm.status, stdout: warm.stdout }).toEqual({ status: 0, stdout: "Hello, world!\n" });
    expect(warm.stderr.split("\n").filter((l) => l !== "" && !/: entry code-/.test(l))).toEqual(["patchwork: code cache: fast-commands: used"]);
  });

  it("check has its own script and entry, used the same way", () => {
    const cache = join(tempFiles({}), "cache");
    const first = runEdited(cache, { command: "check" });
    expect(first.status).toBe(0);
    expect(first.lines).toEqual(["check-analysis: missing", "check-analysis: written"]);
    const second = runEdited(cache, { command: "check" });
    expect(second.lines).toEqual(["check-analysis: used"]);
    const bad = tempFiles({ "bad.pw": "var = 1\n" });
    const r = patchwork(["check", join(bad, "bad.pw")], { env: { PATCHWORK_CACHE_DIR: cache, PATCHWORK_DEBUG: "code-cache" } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("patchwork: code cache: check-analysis: used");
    expect(r.stderr).toMatch(/bad\.pw:1:\d+: error\[PW\d{4}\]/);
  });

  it("a corrupt or truncated entry is not used, the run is unchanged, and the entry is replaced", () => {
    const cache = join(tempFiles({}), "cache");
    runEdited(cache);
    const good = readFileSync(entry(cache).path);
    const damaged: [string, (b: Buffer) => Buffer][] = [
      ["a flipped byte in the payload", (b) => { const c = Buffer.from(b); c[c.length >> 1] ^= 0xff; return c; }],
      ["truncated", (b) => b.subarray(0, b.length >> 1)],
      ["the header only", (b) => b.subarray(0, b.indexOf(10) + 1)],
      ["empty", () => Buffer.alloc(0)],
      ["not ours at all", () => Buffer.from("#!/bin/sh\nrm -rf /\n")],
    ];
    for (const [what, damage] of damaged) {
      writeFileSync(entry(cache).path, damage(good));
      const r = runEdited(cache);
      expect({ what, stdout: r.stdout, status: r.status, other: r.other }).toEqual({ what, stdout: "Hello, world!\n", status: 0, other: [] });
      expect({ what, lines: r.lines }).toEqual({ what, lines: ["parsing: missing", "parsing: written"] });
      expect(runEdited(cache).lines).toEqual(["parsing: used"]);
    }
  });

  it("an entry that passes the checks but holds code V8 does not accept (another script's, random bytes) is rejected and replaced", () => {
    const cache = join(tempFiles({}), "cache");
    runEdited(cache);
    const parsing = entry(cache).path;
    runEdited(cache, { command: "check" });
    const check = entry(cache, "check-analysis").path;
    const read = (p: string) => {
      const d = readFileSync(p);
      const nl = d.indexOf(10);
      return { key: JSON.parse(d.subarray(0, nl).toString("utf8")).key as string, payload: d.subarray(nl + 1) };
    };
    // Swap the payloads: each entry's header stays sound (its own key, the right length and hash).
    const ep = read(parsing);
    const ec = read(check);
    plant(parsing, ep.key, ec.payload);
    plant(check, ec.key, ep.payload);
    const run = runEdited(cache);
    expect(run.stdout).toBe("Hello, world!\n");
    expect(run.lines).toEqual(["parsing: rejected", "parsing: written"]);
    const checked = runEdited(cache, { command: "check" });
    expect(checked.status).toBe(0);
    expect(checked.lines).toEqual(["check-analysis: rejected", "check-analysis: written"]);
    expect(runEdited(cache).lines).toEqual(["parsing: used"]);
    // Bytes that are no V8 code cache at all, of a plausible size.
    const random = Buffer.alloc(ep.payload.length);
    for (let i = 0; i < random.length; i++) random[i] = Math.imul(i + 1, 2654435761) >>> 24;
    plant(parsing, ep.key, random);
    const again = runEdited(cache);
    expect(again.stdout).toBe("Hello, world!\n");
    expect(again.lines).toEqual(["parsing: rejected", "parsing: written"]);
    expect(runEdited(cache).lines).toEqual(["parsing: used"]);
  });

  it("another Node version's entry is not read: it has a key of its own", () => {
    const cache = join(tempFiles({}), "cache");
    const other = tempFiles({ "other-node.mjs": 'Object.defineProperty(process, "version", { value: "v99.0.0" });\n' });
    const asOther = { NODE_OPTIONS: `--import=${join(other, "other-node.mjs")}` };
    expect(runEdited(cache, { env: asOther }).lines).toEqual(["parsing: missing", "parsing: written"]);
    expect(runEdited(cache, { env: asOther }).lines).toEqual(["parsing: used"]);
    const mine = runEdited(cache);
    expect(mine.stdout).toBe("Hello, world!\n");
    expect(mine.lines).toEqual(["parsing: missing", "parsing: written"]);
    expect(codeEntries(cache)).toHaveLength(4); // the parser's and the fast-commands script's, for each Node
    expect(runEdited(cache).lines).toEqual(["parsing: used"]);
  });

  it("--no-cache and PATCHWORK_NO_CACHE=1 neither read nor write it; an unwritable directory changes nothing", () => {
    const cache = join(tempFiles({}), "cache");
    runEdited(cache);
    const before = readFileSync(entry(cache).path);
    for (const options of [{ args: ["--no-cache"] }, { env: { PATCHWORK_NO_CACHE: "1" } }, { command: "check", args: ["--no-cache"] }]) {
      const r = runEdited(cache, options);
      expect(r.status).toBe(0);
      expect(r.lines).toEqual([options.command === "check" ? "check-analysis: off" : "parsing: off"]);
    }
    expect(readFileSync(entry(cache).path)).toEqual(before);
    expect(codeEntries(cache)).toHaveLength(2); // the parser's and the fast-commands script's (run)
    const file = join(tempFiles({ "not-a-dir": "x" }), "not-a-dir");
    const r = runEdited(file);
    expect(r.stdout).toBe("Hello, world!\n");
    expect(r.status).toBe(0);
    expect(r.other).toEqual([]);
    expect(r.lines).toEqual(["parsing: missing", "parsing: not written"]);
  });

  it("the fast-commands script (run) has an entry of its own, written by its first run, checked and replaced like the parser's; check does not use it", () => {
    const cache = join(tempFiles({}), "cache");
    const first = runEdited(cache);
    expect(first.fast).toEqual(["fast-commands: missing", "fast-commands: written"]);
    const run = first.entries["fast-commands"]!;
    expect(runEdited(cache).fast).toEqual(["fast-commands: used"]);
    const check = runEdited(cache, { command: "check" });
    expect(check.status).toBe(0);
    expect(check.fast).toEqual([]);
    expect(runEdited(cache).entries["fast-commands"]).toBe(run);
    expect(statSync(join(cache, run)).mode & 0o777).toBe(0o600);
    // Damaged, or another script's code: not used (or rejected by V8), the run unchanged, replaced.
    const good = readFileSync(join(cache, run));
    const parsing = readFileSync(join(cache, first.entries["parsing"]!));
    const payload = (b: Buffer) => b.subarray(b.indexOf(10) + 1);
    const key = JSON.parse(good.subarray(0, good.indexOf(10)).toString("utf8")).key as string;
    const damaged: [string, () => void, string][] = [
      ["a flipped byte", () => { const c = Buffer.from(good); c[c.length >> 1] ^= 0xff; writeFileSync(join(cache, run), c); }, "missing"],
      ["truncated", () => writeFileSync(join(cache, run), good.subarray(0, good.length >> 1)), "missing"],
      ["the parser's code under this key", () => plant(join(cache, run), key, payload(parsing)), "rejected"],
    ];
    for (const [what, damage, seen] of damaged) {
      damage();
      const r = runEdited(cache);
      expect({ what, stdout: r.stdout, status: r.status, other: r.other, fast: r.fast }).toEqual({ what, stdout: "Hello, world!\n", status: 0, other: [], fast: [`fast-commands: ${seen}`, "fast-commands: written"] });
      expect(runEdited(cache).fast).toEqual(["fast-commands: used"]);
    }
    // The switches turn it off with the rest.
    expect(runEdited(cache, { args: ["--no-cache"] }).fast).toEqual(["fast-commands: off"]);
    expect(runEdited(cache, { env: { PATCHWORK_NO_CACHE: "1" } }).fast).toEqual(["fast-commands: off"]);
  });

  it("a usage error or a missing file inside the fast-commands script reads as it did from the ES modules", () => {
    const cache = join(tempFiles({}), "cache");
    runEdited(cache);
    const d = tempFiles({ "a.pw": HELLO });
    const env = { PATCHWORK_CACHE_DIR: cache, PATCHWORK_DEBUG: "code-cache" };
    const cases: [string[], string][] = [
      [["run", join(d, "a.pw"), "--timeout", "0"], "patchwork: --timeout takes a positive number of seconds\n"],
      [["run", join(d, "missing.pw")], `patchwork: ${join(d, "missing.pw")}: no such file\n`],
      [["run", join(d, "a.pw"), "--cwd", join(d, "nowhere")], `patchwork: --cwd ${join(d, "nowhere")}: no such folder\n`],
    ];
    for (const [args, message] of cases) {
      const r = patchwork(args, { env });
      const stderr = r.stderr.split("\n").filter((l) => !l.startsWith("patchwork: code cache: ")).join("\n");
      expect({ args, status: r.status, stdout: r.stdout, stderr }).toEqual({ args, status: 2, stdout: "", stderr: `${message}Run 'patchwork run --help' for usage.\n` });
      expect(r.stderr).toMatch(/^patchwork: code cache: fast-commands: (used|missing)$/m);
      expect(r.stderr).not.toContain("fast-commands: written"); // a usage error's run is not the one to keep
    }
  });
});

// The agent runtime's npm packages (vendor.ts, decision 0019): the same entries, written and read
// by a run with an agent (a Threadbare program: no parser, so the directory's one code entry is
// this script's).
describe("the agent runtime's code cache (vendor-agent.script.js)", () => {
  const files = tempFiles({ "script.json": JSON.stringify({ prompts: [], fallback: { steps: [{ reply: "ok" }] } }) });
  const agent = `"${process.execPath}" "${join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js")}" "${join(files, "script.json")}"`;
  function runAgent(cacheDir: string, extra: { args?: string[]; env?: Record<string, string> } = {}) {
    const r = patchwork(["run", "examples/nested.json", "--agent", agent, ...(extra.args ?? [])], {
      env: { PATCHWORK_CACHE_DIR: cacheDir, PATCHWORK_NO_CACHE: undefined, PATCHWORK_DEBUG: "code-cache", PATCHWORK_AGENT: undefined, ...extra.env },
      timeoutMs: 60_000,
    });
    const all = r.stderr.split("\n").filter((l) => l.startsWith("patchwork: code cache: ")).map((l) => l.slice("patchwork: code cache: ".length));
    for (const l of all) {
      const m = /^([\w-]+): entry (code-[0-9a-f]{64}\.bin)$/.exec(l);
      if (m) lastEntries = { ...lastEntries, [m[1]!]: m[2]! };
    }
    return { status: r.status, stdout: r.stdout, lines: all.filter((l) => !/: entry /.test(l)), other: r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("patchwork: code cache: ")) };
  }
  const fine = { status: 0, stdout: "", other: [] };

  it("is written by the first run with an agent and used by the next; a corrupt or foreign entry is replaced", () => {
    const cache = join(tempFiles({}), "cache");
    const first = runAgent(cache);
    expect({ ...first, lines: undefined }).toEqual({ ...fine, lines: undefined });
    expect(first.lines).toEqual(["vendor-agent: missing", "vendor-agent: written"]);
    const { path, header, payload } = entry(cache, "vendor-agent");
    expect(header.bytes).toBe(payload.length);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(runAgent(cache).lines).toEqual(["vendor-agent: used"]);
    // A flipped byte: not handed to V8 (the hash), compiled afresh and written again.
    const good = readFileSync(path);
    const flipped = Buffer.from(good);
    flipped[flipped.length >> 1] ^= 0xff;
    writeFileSync(path, flipped);
    const corrupt = runAgent(cache);
    expect({ ...corrupt, lines: undefined }).toEqual({ ...fine, lines: undefined });
    expect(corrupt.lines).toEqual(["vendor-agent: missing", "vendor-agent: written"]);
    expect(runAgent(cache).lines).toEqual(["vendor-agent: used"]);
    // The parser's compiled code under this script's key (a sound header): V8 rejects it.
    runEdited(cache);
    const parsing = entry(cache, "parsing").path;
    const parsingPayload = readFileSync(parsing).subarray(readFileSync(parsing).indexOf(10) + 1);
    plant(path, header.key, parsingPayload);
    const foreign = runAgent(cache);
    expect({ ...foreign, lines: undefined }).toEqual({ ...fine, lines: undefined });
    expect(foreign.lines).toEqual(["vendor-agent: rejected", "vendor-agent: written"]);
    expect(runAgent(cache).lines).toEqual(["vendor-agent: used"]);
  }, 120_000);

  it("has a key per Node version; --no-cache and PATCHWORK_NO_CACHE=1 neither read nor write it; an unwritable directory changes nothing", () => {
    const cache = join(tempFiles({}), "cache");
    const other = tempFiles({ "other-node.mjs": 'Object.defineProperty(process, "version", { value: "v99.0.0" });\n' });
    // (NODE_OPTIONS reaches the agent's node too: harmless.)
    expect(runAgent(cache, { env: { NODE_OPTIONS: `--import=${join(other, "other-node.mjs")}` } }).lines).toEqual(["vendor-agent: missing", "vendor-agent: written"]);
    expect(runAgent(cache).lines).toEqual(["vendor-agent: missing", "vendor-agent: written"]);
    expect(codeEntries(cache)).toHaveLength(2);
    const before = codeEntries(cache).map((n) => readFileSync(join(cache, n)));
    for (const options of [{ args: ["--no-cache"] }, { env: { PATCHWORK_NO_CACHE: "1" } }]) {
      const r = runAgent(cache, options);
      expect({ ...r, lines: undefined }).toEqual({ ...fine, lines: undefined });
      expect(r.lines).toEqual(["vendor-agent: off"]);
    }
    expect(codeEntries(cache).map((n) => readFileSync(join(cache, n)))).toEqual(before);
    const file = join(tempFiles({ "not-a-dir": "x" }), "not-a-dir");
    const r = runAgent(file);
    expect({ ...r, lines: undefined }).toEqual({ ...fine, lines: undefined });
    expect(r.lines).toEqual(["vendor-agent: missing", "vendor-agent: not written"]);
  }, 120_000);
});
