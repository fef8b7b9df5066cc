#!/usr/bin/env node
/**
 * Runs example programs through `patchwork run --agent <Codex's ACP adapter>` with the model
 * API pointed at a fake OpenAI Responses API on 127.0.0.1 (scripts/fake-openai.mjs), and
 * prints what happened: the adapter's initialize capabilities, the model requests Codex made,
 * permission requests and how they were answered, do calls, output, exit code, timing,
 * leftover processes.
 *
 * Downloads nothing. Install the adapter yourself first, e.g.
 *   mkdir /tmp/real-agents && cd /tmp/real-agents && npm install @zed-industries/codex-acp
 *
 * Usage:
 *   node scripts/try-codex-acp.mjs [ADAPTER] [--transport http|stdio|auto|all] [--program FILE]... [--keep DIR]
 *
 *   ADAPTER      path of `codex-acp`; default: found on PATH
 *   --transport  the `--mcp-transport` to test; `all` (default) runs http and stdio
 *   --program    a program to run (repeatable); default examples/categorize.pw and examples/nested.json
 *   --keep DIR   keep the request log, Codex's home and each run's stdout/stderr in DIR
 *   --timeout S  per-run timeout in seconds (default 120)
 *   --model M    the model slug Codex is told to use (default gpt-5.4: one Codex knows, so it
 *                does not send a "Model metadata … not found" warning as agent text)
 *
 * Nothing leaves 127.0.0.1: CODEX_HOME is a fresh temporary directory whose config.toml
 * defines a model provider `fake` (wire_api "responses", base_url the fake server) and selects
 * it; HOME points there too, so your own ~/.codex is neither read nor written.
 *
 * Codex asks `session/request_permission` before every call of an MCP tool, whatever its
 * approval_policy; the request's title is "Approve <the tool's MCP title>" and its rawInput
 * `{server_name: "patchwork", request: {_meta: {codex_approval_kind: "mcp_tool_call"}}}`.
 * Patchwork must recognise that as its `do` tool to allow it.
 * Exit status: 0 when every run printed what was expected and left no process.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startFakeOpenAI } from "./fake-openai.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(repo, "packages/cli/bin/patchwork.js");

const EXPECTED = {
  "categorize.pw": ["Categorized as: RECEIPT", "Extracting amount...", "RECEIPT"],
  "nested.json": ["Categorized as: RECEIPT", "Amount: $542.00"],
};

// ── arguments ────────────────────────────────────────────────────────────────────────────
const argv = process.argv.slice(2);
let adapter;
let transportArg = "all";
let keep;
let timeoutS = 120;
let model = "gpt-5.4";
const programs = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--transport") transportArg = argv[++i];
  else if (a === "--program") programs.push(resolve(argv[++i]));
  else if (a === "--keep") keep = resolve(argv[++i]);
  else if (a === "--timeout") timeoutS = Number(argv[++i]);
  else if (a === "--model") model = argv[++i];
  else if (a === "-h" || a === "--help") {
    console.log(readFileSync(fileURLToPath(import.meta.url), "utf8").split("*/")[0]);
    process.exit(0);
  } else if (!a.startsWith("--") && !adapter) adapter = resolve(a);
  else {
    console.error(`unknown argument ${a}`);
    process.exit(2);
  }
}
if (programs.length === 0) programs.push(join(repo, "examples/categorize.pw"), join(repo, "examples/nested.json"));
const transports = transportArg === "all" ? ["http", "stdio"] : [transportArg];

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {}
  }
  return undefined;
}
adapter ??= onPath("codex-acp");
if (!adapter) {
  console.error(
    "no adapter: pass the path of codex-acp, or put it on PATH\n" +
      "  (npm install @zed-industries/codex-acp in a scratch directory; the bin is node_modules/.bin/codex-acp)",
  );
  process.exit(2);
}
try {
  accessSync(cli);
} catch {
  console.error(`${cli} is missing: build the repository first (npx tsc -b)`);
  process.exit(2);
}

// ── environment ──────────────────────────────────────────────────────────────────────────
const work = keep ?? mkdtempSync(join(tmpdir(), "try-codex-acp-"));
mkdirSync(work, { recursive: true });
const codexHome = join(work, "codex-home");
mkdirSync(codexHome, { recursive: true });
const logFile = join(work, "openai-requests.jsonl");
writeFileSync(logFile, "");
const fake = await startFakeOpenAI({ logFile, finalText: "RECEIPT" });
writeFileSync(
  join(codexHome, "config.toml"),
  [
    `model = ${JSON.stringify(model)}`,
    `model_provider = "fake"`,
    ``,
    `[model_providers.fake]`,
    `name = "fake"`,
    `base_url = ${JSON.stringify(`${fake.url}/v1`)}`,
    `env_key = "OPENAI_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
  ].join("\n"),
);
const marker = randomBytes(8).toString("hex");
const env = {
  ...process.env,
  HOME: codexHome,
  CODEX_HOME: codexHome,
  OPENAI_API_KEY: "fake-key",
  PATCHWORK_TRY_MARKER: marker,
};
for (const key of ["PATCHWORK_AGENT", "OPENAI_BASE_URL", "CODEX_API_KEY"]) delete env[key];

console.log(`adapter:      ${adapter}`);
console.log(`fake API:     ${fake.url}/v1 (log ${logFile})`);
console.log(`scratch:      ${work}${keep ? "" : " (removed at the end)"}`);

// ── helpers ──────────────────────────────────────────────────────────────────────────────
/** Processes (other than us) whose environment carries our marker: the adapter, relays. */
function markedProcesses() {
  const found = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (!environ.includes(`PATCHWORK_TRY_MARKER=${marker}`)) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
      found.push({ pid: Number(pid), cmd });
    } catch {}
  }
  return found;
}

function run(command, args, { timeoutMs }) {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGINT"), timeoutMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** A raw ACP `initialize` with the adapter, to show what it advertises. */
function probeInitialize() {
  return new Promise((done) => {
    const child = spawn(adapter, [], { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let buffer = "";
    const finish = (result) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      done(result);
    };
    const timer = setTimeout(() => finish({ error: "no answer to initialize within 30 s" }), 30_000);
    child.on("error", (e) => finish({ error: e.message }));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      buffer += d;
      for (const line of buffer.split("\n").slice(0, -1)) {
        try {
          const m = JSON.parse(line);
          if (m.id === 1) return finish(m.result ?? { error: JSON.stringify(m.error) });
        } catch {}
      }
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "try-codex-acp", version: "0" },
        },
      })}\n`,
    );
  });
}

function summarizeRequests(requests, t0) {
  const lines = [];
  for (const r of requests) {
    const at = `+${((Date.parse(r.time) - t0) / 1000).toFixed(2)}s`;
    if (r.decision) {
      const tools = (r.body?.tools ?? []).map((t) => (t.type === "namespace" ? `${t.name}{${(t.tools ?? []).map((s) => s.name).join(",")}}` : t.name ?? t.type));
      const ns = tools.find((n) => n.startsWith("mcp__patchwork"));
      lines.push(
        `${at} POST ${r.path} model=${r.body?.model} stream=${!!r.body?.stream} tools=${tools.length}${ns ? ` (offers ${ns})` : ""}` +
          ` → ${r.decision.kind === "call" ? `function_call ${r.decision.name} {"number":0}` : `text ${JSON.stringify(r.decision.text)}`}` +
          `${r.decision.toolResult !== undefined ? `; function_call_output ${JSON.stringify(r.decision.toolResult)}` : ""}`,
      );
    } else {
      lines.push(`${at} ${r.method} ${r.url} → ${r.status}`);
    }
  }
  return lines;
}

// ── runs ─────────────────────────────────────────────────────────────────────────────────
const init = await probeInitialize();
console.log(`\ninitialize:   agent ${init.agentInfo?.name ?? "?"} ${init.agentInfo?.version ?? ""}, protocol ${init.protocolVersion}`);
console.log(`              mcpCapabilities ${JSON.stringify(init.agentCapabilities?.mcpCapabilities ?? null)}, sessionCapabilities ${JSON.stringify(init.agentCapabilities?.sessionCapabilities ?? null)}${init.error ? `  ERROR ${init.error}` : ""}`);
await new Promise((r) => setTimeout(r, 300));
for (const p of markedProcesses()) {
  try {
    process.kill(p.pid, "SIGKILL");
  } catch {}
}

let failures = 0;
for (const transport of transports) {
  for (const program of programs) {
    const name = basename(program);
    const before = fake.requests.length;
    const t0 = Date.now();
    const args = [cli, "run", program, "--agent", adapter, "--verbose"];
    if (transport !== "auto") args.push("--mcp-transport", transport);
    console.log(`\n═══ ${name} --mcp-transport ${transport}`);
    console.log(`$ node ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}`);
    const result = await run(process.execPath, args, { timeoutMs: timeoutS * 1000 });
    await new Promise((r) => setTimeout(r, 500));
    const leftovers = markedProcesses();
    for (const p of leftovers) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {}
    }
    if (keep) {
      writeFileSync(join(work, `${name}.${transport}.stdout`), result.stdout);
      writeFileSync(join(work, `${name}.${transport}.stderr`), result.stderr);
    }
    const requests = fake.requests.slice(before);
    const verbose = result.stderr.split("\n");
    const permissions = verbose.filter((l) => l.startsWith("[permission"));
    const denied = permissions.filter((l) => !l.endsWith(": allow]"));
    const dos = verbose.filter((l) => /^\[do\(\d+\)\]/.test(l));
    const started = verbose.find((l) => l.startsWith("[agent "));
    const expected = EXPECTED[name];
    const outLines = result.stdout.split("\n").filter(Boolean);
    const outputOk = expected ? expected.every((e, i) => outLines[i] === e) && outLines.length === expected.length : true;
    const ok = result.code === 0 && outputOk && leftovers.length === 0 && denied.length === 0;
    if (!ok) failures++;
    console.log(`exit ${result.code ?? result.signal} in ${(result.ms / 1000).toFixed(2)} s${started ? `; ${started}` : ""}`);
    console.log(`permission requests: ${permissions.length ? permissions.join(" ") : "none"}; do calls run: ${dos.length}`);
    if (denied.length) console.log("  the do tool was not allowed: patchwork did not recognise Codex's approval request as its do tool");
    console.log("model API requests:");
    for (const line of summarizeRequests(requests, t0)) console.log(`  ${line}`);
    console.log("stdout:");
    for (const line of outLines) console.log(`  | ${line}`);
    if (result.code !== 0 || !outputOk) {
      console.log("stderr (tail):");
      for (const line of result.stderr.trim().split("\n").slice(-25)) console.log(`  ! ${line}`);
    }
    console.log(`processes left behind: ${leftovers.length ? leftovers.map((p) => `${p.pid} ${p.cmd}`).join("; ") : "none"}`);
    console.log(ok ? "RESULT: ok" : `RESULT: FAILED${expected && !outputOk ? ` (expected stdout ${JSON.stringify(expected)})` : ""}`);
  }
}

await fake.close();
if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`\n${failures === 0 ? "all runs ok" : `${failures} run(s) failed`}`);
process.exit(failures === 0 ? 0 : 1);
