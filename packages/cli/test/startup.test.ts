// What start-up loads (docs/benchmarks.md, "Start-up"): the common command lines must not
// load yargs, zod, the ACP/MCP SDKs or the agent runtime. A module hook (node --import)
// records every module Node loads; the figures themselves are benchmarks (npm run bench:startup).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { patchwork, patchworkBin, repoRoot, splitSummary, tempFiles } from "./helpers.js";

const dir = tempFiles({});
writeFileSync(join(dir, "register.mjs"), 'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n');
writeFileSync(
  join(dir, "hooks.mjs"),
  'import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) {\n  if (!url.startsWith("node:")) appendFileSync(process.env.PW_LOADED_LOG, url + "\\n");\n  return next(url, context);\n}\n',
);

/**
 * The modules (file URLs) Node loads for `patchwork ARGS`, the run's output, and the bundle's
 * classic scripts it compiled (`parsing`, `check-analysis`: the parser for a parse-cache miss,
 * decision 0017; `vendor-agent`: the agent runtime's npm packages, decision 0019; read as files
 * and compiled with vm.Script and a code cache), which module hooks do not see: from the lines of
 * PATCHWORK_DEBUG=code-cache.
 */
function loaded(args: string[], env: Record<string, string> = {}): { modules: string[]; scripts: string[]; stdout: string; status: number | null } {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, "");
  const r = spawnSync(process.execPath, ["--import", join(dir, "register.mjs"), patchworkBin, ...args], {
    cwd: repoRoot,
    env: { ...process.env, PW_LOADED_LOG: log, PATCHWORK_AGENT: "", PATCHWORK_DEBUG: "code-cache", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  const scripts = [...r.stderr.matchAll(/^patchwork: code cache: ([\w-]+): (?:used|missing|rejected|off)$/gm)].map((m) => m[1]!);
  return { modules: readFileSync(log, "utf8").split("\n").filter(Boolean), scripts, stdout: r.stdout, status: r.status };
}

const heavy = /node_modules\/(yargs|zod|@agentclientprotocol|@modelcontextprotocol)\//;

// A second hook holds the agent runtime's modules (the ACP and MCP SDKs, zod) until a file
// exists: what a run does before it needs them shows, however fast or slow they would load.
writeFileSync(join(dir, "register-hold.mjs"), 'import { register } from "node:module";\nregister("./hold.mjs", import.meta.url);\n');
writeFileSync(
  join(dir, "hold.mjs"),
  [
    'import { appendFileSync, existsSync } from "node:fs";',
    "const held = /node_modules\\/(zod|@agentclientprotocol|@modelcontextprotocol)\\//;",
    "export async function load(url, context, next) {",
    "  const result = await next(url, context);",
    // The bundle's modules that take those packages from the vendor-agent script (decision 0019): its shims.
    "  const shim = url.startsWith(\"file:\") && String(result.source ?? \"\").includes(\"vendorLibrary(\\\"\");",
    "  if (held.test(url) || shim) while (!existsSync(process.env.PW_RELEASE)) await new Promise((r) => setTimeout(r, 20));",
    '  if (!url.startsWith("node:")) appendFileSync(process.env.PW_LOADED_LOG, url + (shim ? " (vendor shim)" : "") + "\\n");',
    "  return result;",
    "}",
    "",
  ].join("\n"),
);

/** Whether one of the modules or scripts is the parser (Chevrotain builds it with performSelfAnalysis). */
const loadsParser = ({ modules, scripts }: { modules: string[]; scripts: string[] }) =>
  scripts.some((s) => s !== "vendor-agent" && s !== "fast-commands") || modules.some((m) => readFileSync(fileURLToPath(m), "utf8").includes("performSelfAnalysis"));
/** The bundle's modules that take the agent runtime's npm packages from the vendor-agent script (a shim calls `vendorLibrary("zod")`). */
const shims = (modules: string[]) => modules.filter((m) => readFileSync(fileURLToPath(m), "utf8").includes('vendorLibrary("'));
const bytesOf = (modules: string[]) => modules.reduce((sum, m) => sum + statSync(fileURLToPath(m)).size, 0);

describe("start-up loads only what the command needs", () => {
  it("run FILE: the bundle's run path; no yargs, zod, SDKs or agent runtime", () => {
    const r = loaded(["run", "examples/hello.pw"]);
    expect(r.stdout).toBe("Hello, world!\n");
    expect(r.modules.filter((m) => heavy.test(m))).toEqual([]);
    expect(r.modules.filter((m) => m.includes("/node_modules/"))).toEqual([]);
    expect(r.modules.filter((m) => /agent-run|evaluator-worker|mcp/.test(basename(m)))).toEqual([]);
    // The run itself is the fast-commands script (decision 0018), the parser another script
    // (decision 0017), both from the CommonJS launcher (decision 0020): no ES module of the bundle
    // is imported. (The hook sees the launcher itself only because `--import` loads the main
    // module through the ES loader; launch.cjs is required, and requires Node's modules only.)
    expect(r.modules.map((m) => basename(m))).toEqual(["patchwork.js"]);
    expect(r.scripts[0]).toBe("fast-commands");
    expect(r.scripts.slice(1).every((s) => s === "parsing")).toBe(true);
  });

  it("a run that needs the agent runtime, a recording or workers does not load the fast-commands script", () => {
    const files = tempFiles({ "w.pw": 'worker W { fun hi() -> string { return "hi" } }\nprint(W.hi())\n' });
    const cassette = tempFiles({});
    for (const args of [
      ["run", "examples/hello.pw", "--trace", join(cassette, "t.jsonl")],
      ["run", "examples/hello.pw", "--agent", "no-such-agent-command"],
    ]) {
      const r = loaded(args);
      expect({ args, scripts: r.scripts.filter((s) => s === "fast-commands") }).toEqual({ args, scripts: [] });
    }
    // Workers: read from the program's text, so the script is loaded and hands the run over.
    const w = loaded(["run", join(files, "w.pw")]);
    expect(w.scripts[0]).toBe("fast-commands");
    expect(w.modules.some((m) => /agent-run/.test(basename(m)))).toBe(true);
  });

  it("a warm run FILE or check FILE (its parse cached) loads neither the parser nor the analysis; a cold one does", () => {
    const env = { PATCHWORK_CACHE_DIR: tempFiles({}) };
    for (const command of ["run", "check"]) {
      const cold = loaded([command, "examples/hello.pw"], { ...env, PATCHWORK_NO_CACHE: "1" });
      expect(loadsParser(cold)).toBe(true);
      expect(cold.scripts).toEqual(command === "run" ? ["fast-commands", "parsing"] : ["check-analysis"]);
      expect(loadsParser({ modules: cold.modules, scripts: [] })).toBe(false); // the script, not the parser's module
      loaded([command, "examples/hello.pw"], env); // fills the cache
      const warm = loaded([command, "examples/hello.pw"], env);
      expect(warm.stdout).toBe(cold.stdout);
      expect(warm.status).toBe(0);
      expect(loadsParser(warm)).toBe(false);
      // A cold run loads the same modules as a warm one: the parser is a script (code cache).
      expect([...warm.modules].sort()).toEqual([...cold.modules].sort()); // sibling chunks load in either order
      expect(warm.modules.filter((m) => heavy.test(m) || /agent-run|evaluator-worker|mcp|analysis/.test(basename(m)))).toEqual([]);
      expect(warm.modules.map((m) => basename(m))).toEqual(["patchwork.js"]); // the launcher only (decision 0020)
    }
  });

  it("--version loads the launcher only: no ES module of the bundle, no script, not the parser", () => {
    const r = loaded(["--version"]);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(r.modules.map((m) => basename(m))).toEqual(["patchwork.js"]);
    expect(r.scripts).toEqual([]);
  });

  it("the launcher is CommonJS and requires nothing but Node's modules (decision 0020)", () => {
    const launcher = readFileSync(join(repoRoot, "packages/cli/bundle/launch.cjs"), "utf8");
    expect([...launcher.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]).filter((name) => !name!.startsWith("node:"))).toEqual([]);
    // Anything else goes to main's ES modules: a command line it does not answer still works.
    const r = spawnSync(process.execPath, [patchworkBin, "list", "examples/hello.pw"], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, PATCHWORK_AGENT: "" } });
    expect(r.status, r.stderr).toBe(0);
    // Its own commands' usage errors are the CLI's: exit status 2, the same words, no stack.
    for (const args of [["check", "no-such-file.pw"], ["run", "no-such-file.pw"]]) {
      const bad = spawnSync(process.execPath, [patchworkBin, ...args], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, PATCHWORK_AGENT: "" } });
      expect({ args, status: bad.status, stderr: bad.stderr }).toEqual({ args, status: 2, stderr: `patchwork: no-such-file.pw: no such file\nRun 'patchwork ${args[0]} --help' for usage.\n` });
    }
  });

  it("run FILE with an entry, --agent or the common flags takes the fast path too: no yargs", () => {
    const r = loaded(["run", "examples/hello.pw", "--no-agent", "--verbose"]);
    expect(r.stdout).toBe("Hello, world!\n");
    expect(r.modules.filter((m) => heavy.test(m))).toEqual([]);
  });

  it("options before the file take the fast path as well (the order never changes the start-up)", () => {
    const before = loaded(["run", "--no-agent", "--timeout", "60", "-v", "examples/hello.pw"]);
    const after = loaded(["run", "examples/hello.pw", "--no-agent", "--timeout", "60", "-v"]);
    expect(before.stdout).toBe("Hello, world!\n");
    expect(before.modules.filter((m) => heavy.test(m))).toEqual([]);
    expect([...before.modules].sort()).toEqual([...after.modules].sort());
  });

  it("a replay without an agent is the fast-commands script's too: no ES module, no parser when warm", () => {
    const cassette = '{"patchwork": "cassette", "version": 1, "thinks": [{"think": 1, "prompt": "Say hi.", "turns": [{"do": [], "answer": "hi"}]}]}\n';
    const files = tempFiles({ "hi.pw": "print(think { Say hi. })\n", "hi.cassette.json": cassette });
    const env = { PATCHWORK_CACHE_DIR: tempFiles({}) };
    const args = ["run", join(files, "hi.pw"), "--replay", join(files, "hi.cassette.json")];
    loaded(args, env); // fills the parse cache
    const replay = loaded(args, env);
    const noAgent = loaded(["run", join(files, "hi.pw"), "--no-agent"], env);
    expect(replay.stdout).toBe("hi\n");
    expect(replay.modules.filter((m) => heavy.test(m) || /agent-run|evaluator-worker|bundle\/agent\.js/.test(m))).toEqual([]);
    expect(loadsParser(replay)).toBe(false);
    // A replay is a run without an agent whose thinks a cassette answers: the fast-commands
    // script holds it (decisions 0018 and 0020), as it holds the no-agent run.
    expect(noAgent.scripts).toEqual(["fast-commands"]);
    expect(replay.scripts).toEqual(["fast-commands"]);
    expect(replay.modules.map((m) => basename(m))).toEqual(["patchwork.js"]);
    // With a trace, or an agent for the thinks the cassette lacks, it is not (the ES modules).
    const traced = loaded([...args, "--trace", join(files, "t.jsonl")], env);
    expect([traced.stdout, traced.scripts.includes("fast-commands")]).toEqual(["hi\n", false]);
  });

  it("a Threadbare JSON program loads no parser and no zod, on any thread, with or without an agent", () => {
    const noAgent = loaded(["run", "examples/nested.json", "--no-agent"]);
    expect(noAgent.status).toBe(0);
    expect(noAgent.modules.filter((m) => heavy.test(m))).toEqual([]);
    expect(loadsParser(noAgent)).toBe(false);
    // With an agent the program runs on an evaluator thread (the hooks see its modules too):
    // the main thread loads the file and gives the thread its AST.
    const files = tempFiles({ "script.json": JSON.stringify({ prompts: [], fallback: { steps: [{ reply: "ok" }] } }) });
    const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
    const withAgent = loaded(["run", "examples/nested.json", "--agent", `"${process.execPath}" "${testAgent}" "${join(files, "script.json")}"`]);
    expect(withAgent.status).toBe(0);
    expect(withAgent.modules.some((m) => m.endsWith("/evaluator-worker.js"))).toBe(true);
    expect(loadsParser(withAgent)).toBe(false);
    expect(withAgent.modules.filter((m) => /node_modules\/zod\/.*\.cjs$/.test(m))).toEqual([]);
  });

  it("the launcher starts a resume's evaluator thread before main's modules load, and the run takes that one", () => {
    const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
    const files = tempFiles({
      "p.pw": 'var a = think { First. }\nprint("replayed: $a")\nvar b = think { Second. }\nprint("live: $b")\n',
      "script.json": JSON.stringify({ prompts: [], fallback: { steps: [{ reply: "two" }] } }),
      "c.json": JSON.stringify({ patchwork: "cassette", version: 1, thinks: [{ think: 1, prompt: "First.", turns: [{ do: [], answer: "one" }] }] }),
    });
    const agent = `"${process.execPath}" "${testAgent}" "${join(files, "script.json")}"`;
    const r = spawnSync(process.execPath, [patchworkBin, "run", "p.pw", "--agent", agent, "--resume", "c.json"], {
      cwd: files,
      env: { ...process.env, NODE_DEBUG: "worker", PATCHWORK_AGENT: "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect([r.status, r.stdout]).toEqual([0, "replayed: one\nlive: two\n"]);
    // One thread in all: had the run not taken the launcher's, it would have started a second.
    expect(r.stderr.match(/create new worker .*evaluator-worker\.js/g)).toHaveLength(1);
  });

  it("a resume replays without waiting for the agent runtime: only the first think the cassette lacks waits for it", async () => {
    const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
    // What a recording killed during its third think leaves.
    const killed = JSON.stringify({
      patchwork: "cassette",
      version: 1,
      thinks: [
        { think: 1, prompt: "First.", turns: [{ do: [], answer: "one" }] },
        { think: 2, prompt: "Second.", turns: [{ do: [], answer: "two" }] },
      ],
    });
    const files = tempFiles({
      "p.pw": 'var a = think { First. }\nvar b = think { Second. }\nprint("replayed: $a $b")\nvar c = think { Third. }\nprint("live: $c")\n',
      "script.json": JSON.stringify({ prompts: [], fallback: { steps: [{ reply: "three" }] } }),
    });
    const release = join(files, "release");
    const log = join(files, "loaded.txt");
    writeFileSync(log, "");
    const agent = `"${process.execPath}" "${testAgent}" "${join(files, "script.json")}"`;
    for (const args of [["--resume", "c.json"], ["--replay", "c.json", "--replay-missing=agent"]]) {
      writeFileSync(join(files, "c.json"), killed);
      const child = spawn(process.execPath, ["--import", join(dir, "register-hold.mjs"), patchworkBin, "run", "p.pw", "--agent", agent, ...args], {
        cwd: files,
        env: { ...process.env, PW_RELEASE: release, PW_LOADED_LOG: log, PATCHWORK_AGENT: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
      // The replayed thinks run while the runtime is held (a generous deadline: a loaded machine).
      const deadline = Date.now() + 60_000;
      while (!stdout.includes("replayed: one two\n") && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
      expect(existsSync(release)).toBe(false);
      expect([stdout, args.join(" ")]).toEqual(["replayed: one two\n", args.join(" ")]);
      const modules = readFileSync(log, "utf8").split("\n");
      expect(modules.some((m) => m.endsWith("/evaluator-worker.js"))).toBe(true);
      expect(modules.filter((m) => heavy.test(m))).toEqual([]);
      // The third think waits for the agent, whose runtime then loads.
      writeFileSync(release, "");
      expect(await exit).toBe(0);
      expect(readFileSync(log, "utf8")).toMatch(/ \(vendor shim\)$/m); // what the hold held
      expect(stdout).toBe("replayed: one two\nlive: three\n");
      const { stderr: said, summary } = splitSummary(stderr);
      expect(said).toBe("patchwork: c.json: 2 thinks replayed, 1 think asked live\n");
      expect(summary).toMatch(/^1 think asked, 2 replayed, 0 retried, 0 failed · /);
      const cassette = JSON.parse(readFileSync(join(files, "c.json"), "utf8"));
      expect(cassette.thinks.map((t: { prompt: string; turns: { answer: string }[] }) => [t.prompt, t.turns[0]!.answer])).toEqual([
        ["First.", "one"],
        ["Second.", "two"],
        ["Third.", "three"],
      ]);
      rmSync(release);
      writeFileSync(log, "");
    }
    // --trace and --verbose see the replayed thinks and the live one, the agent started after them.
    writeFileSync(join(files, "c.json"), killed);
    const r = patchwork(["run", "p.pw", "--agent", agent, "--resume", "c.json", "--trace", "t.jsonl", "-v"], { cwd: files, timeoutMs: 60_000 });
    expect([r.status, r.stdout]).toEqual([0, "replayed: one two\nlive: three\n"]);
    expect(r.stderr).toMatch(/\[value of think 1: "one" \(string\)\][^]*\[value of think 2: "two"[^]*\[agent patchwork-test-agent started[^]*\[value of think 3: "three"/);
    expect(r.stderr).toContain("patchwork: c.json: 2 thinks replayed, 1 think asked live\n");
    const records = readFileSync(join(files, "t.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { type: string; id?: number; ok?: boolean; mode?: string });
    expect(records[0]).toMatchObject({ type: "run-start", mode: "replay" });
    expect(records.filter((e) => e.type === "think-end").map((e) => [e.id, e.ok])).toEqual([[1, true], [2, true], [3, true]]);
    const started = records.findIndex((e) => e.type === "agent-started");
    expect(started).toBeGreaterThan(records.findIndex((e) => e.type === "think-end" && e.id === 2));
    expect(records.at(-1)).toMatchObject({ type: "run-end", ok: true });
  }, 120_000);

  it("the agent runtime's npm packages come from the vendor-agent script, only in a run with an agent", () => {
    const env = { PATCHWORK_CACHE_DIR: tempFiles({}) };
    const files = tempFiles({ "script.json": JSON.stringify({ prompts: [], fallback: { steps: [{ reply: "ok" }] } }) });
    const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
    const agent = `"${process.execPath}" "${testAgent}" "${join(files, "script.json")}"`;
    for (let round = 0; round < 2; round++) {
      // The first round compiles the script and writes its code cache; the second uses it.
      const withAgent = loaded(["run", "examples/nested.json", "--agent", agent], env);
      expect(withAgent.status).toBe(0);
      expect(withAgent.scripts).toEqual(["vendor-agent"]); // once: the main thread; the evaluator thread needs none of it
      expect(withAgent.modules.filter((m) => heavy.test(m))).toEqual([]); // no package of it from node_modules
      expect(shims(withAgent.modules).length).toBeGreaterThan(0);
    }
    // A warm run without an agent, its file's parse cached: none of it.
    loaded(["run", "examples/hello.pw"], env);
    for (const args of [["run", "examples/hello.pw"], ["run", "examples/hello.pw", "--no-agent"], ["run", "examples/nested.json", "--no-agent"]]) {
      const r = loaded(args, env);
      expect(r.status).toBe(0);
      expect([args, r.scripts.filter((s) => s !== "fast-commands")]).toEqual([args, []]); // (the run itself is a script: decision 0018)
      expect([args, shims(r.modules)]).toEqual([args, []]);
    }
  });

  it("other command lines go through yargs, still without the agent's code", () => {
    const r = loaded(["run", "examples/hello.pw", "--max-workers", "2"]);
    expect(r.stdout).toBe("Hello, world!\n");
    expect(r.modules.some((m) => /node_modules\/yargs\//.test(m))).toBe(true);
    expect(r.modules.filter((m) => /zod|@agentclientprotocol|@modelcontextprotocol|agent-run/.test(m))).toEqual([]);
  });
});

describe("the fast path behaves as the full command line", () => {
  it("--version prints the CLI package's version", () => {
    const version = JSON.parse(readFileSync(join(repoRoot, "packages", "cli", "package.json"), "utf8")).version;
    const r = patchwork(["--version"]);
    expect(r).toEqual({ status: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("check FILE… reports every file's errors and exits 1 if any has one", () => {
    const d = tempFiles({ "good.pw": "var x = 1\nprint(x)\n", "bad.pw": "var = 1\n" });
    const r = patchwork(["check", join(d, "good.pw"), join(d, "bad.pw")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/bad\.pw:1:\d+: error\[PW\d{4}\]/);
    expect(r.stderr).not.toContain("good.pw");
    expect(patchwork(["check", join(d, "good.pw")]).status).toBe(0);
  });

  it("run FILE gives what run FILE --no-agent gives, plus the no-agent notice at a think", () => {
    const d = tempFiles({ "t.pw": 'print("a")\nprint(think { Say hi. })\n' });
    const fast = patchwork(["run", join(d, "t.pw")]);
    const full = patchwork(["run", join(d, "t.pw"), "--no-agent"]);
    expect(fast.stdout).toBe(full.stdout);
    expect(fast.status).toBe(0);
    expect(fast.stderr).toMatch(/no agent configured/);
    expect(full.stderr).toBe("");
  });
});
