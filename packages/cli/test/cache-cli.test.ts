// The parse cache as the `patchwork` binary uses it (docs/cli.md, "The cache"): a warm run or
// check prints exactly what a cold one prints, an import's change is seen, an unwritable
// directory and the off switches. An end-to-end suite (test/suites.ts): a process per command.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

describe("patchwork run and check with the cache (the binary)", () => {
  const program = {
    "main.pw": 'import { half } from "./lib.pw"\nprint("start")\nif 1 = 1 { print(half(4)) }\nprint(half("x"))\n',
    "lib.pw": "export fun half(n) {\n  return n / 2\n}\n",
  };

  it("a warm run prints what a cold one does, errors and warnings at the same positions, and sees an import change", () => {
    const d = tempFiles(program);
    const cacheDir = join(d, "cache");
    const env = { PATCHWORK_CACHE_DIR: cacheDir };
    const cold = patchwork(["run", "main.pw"], { cwd: d, env: { PATCHWORK_NO_CACHE: "1" } });
    expect(cold.status).toBe(1);
    expect(cold.stderr).toMatch(/lib\.pw:2:\d+: error\[PW\d{4}\]/);
    expect(cold.stderr).toMatch(/main\.pw:3:\d+: warning/);
    const first = patchwork(["run", "main.pw"], { cwd: d, env });
    const warm = patchwork(["run", "main.pw"], { cwd: d, env });
    expect(first).toEqual(cold);
    expect(warm).toEqual(cold);
    expect(readdirSync(cacheDir).filter((n) => n.startsWith("ast-"))).toHaveLength(2);
    writeFileSync(join(d, "lib.pw"), "export fun half(n) {\n  return 0\n}\n");
    const changed = patchwork(["run", "main.pw"], { cwd: d, env });
    expect(changed.stdout).toBe("start\n0\n0\n");
    expect(changed.status).toBe(0);
  });

  it("a run with an agent parses ahead through the cache: warm prints what cold does, and sees an import change", () => {
    const d = tempFiles({
      ...program,
      "main.pw": 'import { half } from "./lib.pw"\nworker w(n) { return half(n) }\nif 1 = 1 { print(think { one }) }\nprint(self.delegate([w(8)]).await)\nprint(half("x"))\n',
      "script.json": JSON.stringify({ fallback: { steps: [{ reply: "answered" }] } }),
    });
    const agent = `"${process.execPath}" "${join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js")}" "${join(d, "script.json")}"`;
    const cacheDir = join(d, "cache");
    // (Less the run's summary, whose wall time differs from run to run.)
    const run = (env: Record<string, string>) => ({ ...patchwork(["run", "main.pw", "--agent", agent], { cwd: d, env }), summary: undefined });
    const cold = run({ PATCHWORK_NO_CACHE: "1" });
    expect(cold.stdout).toBe("answered\n4\n");
    expect(cold.stderr).toMatch(/main\.pw:3:\d+: warning/);
    expect(cold.stderr).toMatch(/lib\.pw:2:\d+: error\[PW\d{4}\]/);
    expect(cold.status).toBe(1);
    const first = run({ PATCHWORK_CACHE_DIR: cacheDir });
    const warm = run({ PATCHWORK_CACHE_DIR: cacheDir });
    expect(first).toEqual(cold);
    expect(warm).toEqual(cold);
    expect(readdirSync(cacheDir).filter((n) => n.startsWith("ast-"))).toHaveLength(2);
    writeFileSync(join(d, "lib.pw"), "export fun half(n) {\n  return 0\n}\n");
    const changed = run({ PATCHWORK_CACHE_DIR: cacheDir });
    expect(changed.stdout).toBe("answered\n0\n0\n");
    expect(changed.status).toBe(0);
  });

  it("a warm check reports what a cold one does, and checks again when an import changes", () => {
    const d = tempFiles({ "main.pw": 'import { half, twice } from "./lib.pw"\nprint(half(1))\n', "lib.pw": program["lib.pw"] });
    const env = { PATCHWORK_CACHE_DIR: join(d, "cache") };
    const cold = patchwork(["check", "main.pw", "--no-cache"], { cwd: d, env });
    expect(cold.status).toBe(1);
    expect(cold.stderr).toContain("twice");
    expect(readdirSync(d)).not.toContain("cache");
    expect(patchwork(["check", "main.pw"], { cwd: d, env })).toEqual(cold);
    expect(patchwork(["check", "main.pw"], { cwd: d, env })).toEqual(cold);
    writeFileSync(join(d, "lib.pw"), program["lib.pw"] + "export fun twice(n) {\n  return n * 2\n}\n");
    expect(patchwork(["check", "main.pw"], { cwd: d, env })).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  it("an unwritable cache directory: the run works, nothing is cached, --verbose says so once", () => {
    const d = tempFiles({ ...program, "not-a-dir": "a file" });
    const env = { PATCHWORK_CACHE_DIR: join(d, "not-a-dir", "cache") };
    const cold = patchwork(["run", "main.pw"], { cwd: d, env: { PATCHWORK_NO_CACHE: "1" } });
    expect(patchwork(["run", "main.pw"], { cwd: d, env })).toEqual(cold);
    const verbose = patchwork(["run", "main.pw", "--verbose"], { cwd: d, env });
    expect(verbose.stdout).toBe(cold.stdout);
    expect(verbose.stderr.match(/not caching/g)).toHaveLength(1);
    expect(verbose.stderr.replace(/^patchwork: cache directory .* not caching\n/m, "")).toBe(cold.stderr);
  });

  it("--no-cache and PATCHWORK_NO_CACHE=1 write nothing", () => {
    const d = tempFiles(program);
    const env = { PATCHWORK_CACHE_DIR: join(d, "cache") };
    patchwork(["run", "main.pw", "--no-cache"], { cwd: d, env });
    patchwork(["run", "main.pw"], { cwd: d, env: { ...env, PATCHWORK_NO_CACHE: "1" } });
    patchwork(["check", "main.pw"], { cwd: d, env: { ...env, PATCHWORK_NO_CACHE: "1" } });
    expect(readdirSync(d)).not.toContain("cache");
  });
});
