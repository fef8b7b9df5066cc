#!/usr/bin/env node
/**
 * Runs example programs through `patchwork run --agent <Claude Code's ACP adapter>` with the
 * model API pointed at a fake Anthropic server on 127.0.0.1 (scripts/fake-anthropic.mjs),
 * and prints what happened: the adapter's initialize capabilities, the model requests Claude
 * Code made, permission requests, do calls, output, exit code, timing, leftover processes.
 *
 * Downloads nothing. Install the adapter yourself first, e.g.
 *   mkdir /tmp/real-agents && cd /tmp/real-agents && npm install @agentclientprotocol/claude-agent-acp
 *
 * Usage:
 *   node scripts/try-claude-acp.mjs [ADAPTER] [--transport http|stdio|auto|all] [--program FILE]... [--keep DIR]
 *
 *   ADAPTER      path of `claude-agent-acp` (or `claude-code-acp`); default: found on PATH
 *   --transport  the `--mcp-transport` to test; `all` (default) runs http and stdio
 *   --program    a program to run (repeatable); default examples/categorize.pw and examples/nested.json
 *   --keep DIR   keep the fake server's request log and each run's stdout/stderr in DIR
 *   --timeout S  per-run timeout in seconds (default 120)
 *
 * Nothing leaves 127.0.0.1: ANTHROPIC_BASE_URL points at the fake server and Claude Code's
 * nonessential traffic, telemetry, error reporting and auto-update are switched off. HOME and
 * CLAUDE_CONFIG_DIR point at a fresh temporary directory, so your own ~/.claude is neither
 * read nor written. When run as root, IS_SANDBOX=1 is set: the adapter passes
 * --allow-dangerously-skip-permissions to Claude Code, which then refuses to start as root
 * ("cannot be used with root/sudo privileges") unless IS_SANDBOX=1 (the value "yes" is not
 * enough). Exit status: 0 when every run printed what was expected and left no process.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startFakeAnthropic } from "./fake-anthropic.mjs";

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
const programs = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--transport") transportArg = argv[++i];
  else if (a === "--program") programs.push(resolve(argv[++i]));
  else if (a === "--keep") keep = resolve(argv[++i]);
  else if (a === "--timeout") timeoutS = Number(argv[++i]);
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
adapter ??= onPath("claude-agent-acp") ?? onPath("claude-code-acp");
if (!adapter) {
  console.error(
    "no adapter: pass the path of claude-agent-acp, or put it on PATH\n" +
      "  (npm install @agentclientprotocol/claude-agent-acp in a scratch directory; the bin is node_modules/.bin/claude-agent-acp)",
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
const work = keep ?? mkdtempSync(join(tmpdir(), "try-claude-acp-"));
mkdirSync(work, { recursive: true });
const home = join(work, "home");
mkdirSync(join(home, ".claude"), { recursive: true });
const logFile = join(work, "anthropic-requests.jsonl");
writeFileSync(logFile, "");
const fake = await startFakeAnthropic({ logFile, finalText: "RECEIPT" });
const marker = randomBytes(8).toString("hex");
const env = {
  ...process.env,
  HOME: home,
  CLAUDE_CONFIG_DIR: join(home, ".claude"),
  ANTHROPIC_BASE_URL: fake.url,
  ANTHROPIC_API_KEY: "fake-key",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_BUG_COMMAND: "1",
  PATCHWORK_TRY_MARKER: marker,
};
for (const key of ["PATCHWORK_AGENT", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_OAUTH_TOKEN"]) delete env[key];
if (process.getuid?.() === 0) env.IS_SANDBOX = "1";

console.log(`adapter:      ${adapter}`);
console.log(`fake API:     ${fake.url} (log ${logFile})`);
console.log(`scratch:      ${work}${keep ? "" : " (removed at the end)"}`);

// ── helpers ──────────────────────────────────────────────────────────────────────────────
/** Processes (other than us) whose environment carries our marker: agents, Claude Code, relays. */
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
          clientInfo: { name: "try-claude-acp", version: "0" },
        },
      })}\n`,
    );
  });
}

function summarizeRequests(requests, t0) {
  const lines = [];
  for (const r of requests) {
    const at = `+${((Date.parse(r.time) - t0) / 1000).toFixed(2)}s`;
    if (r.path === "/v1/messages") {
      const tools = (r.body?.tools ?? []).map((t) => t.name);
      const doTool = tools.find((n) => n.endsWith("__do"));
      lines.push(
        `${at} POST /v1/messages model=${r.body?.model} stream=${!!r.body?.stream} tools=${tools.length}` +
          `${doTool ? ` (offers ${doTool})` : ""} messages=${r.body?.messages?.length} → ${r.decision.kind === "tool_use" ? `tool_use ${r.decision.name} {"number":0}` : `text ${JSON.stringify(r.decision.text)}`}` +
          `${r.decision.toolResult !== undefined ? `; tool_result${r.decision.toolResultIsError ? " (is_error)" : ""} ${JSON.stringify(r.decision.toolResult)}` : ""}`,
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
console.log(`              mcpCapabilities ${JSON.stringify(init.agentCapabilities?.mcpCapabilities ?? null)}${init.error ? `  ERROR ${init.error}` : ""}`);
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
    const dos = verbose.filter((l) => /^\[do\(\d+\)\]/.test(l));
    const started = verbose.find((l) => l.startsWith("[agent "));
    const expected = EXPECTED[name];
    const outLines = result.stdout.split("\n").filter(Boolean);
    const outputOk = expected ? expected.every((e, i) => outLines[i] === e) && outLines.length === expected.length : true;
    const ok = result.code === 0 && outputOk && leftovers.length === 0;
    if (!ok) failures++;
    console.log(`exit ${result.code ?? result.signal} in ${(result.ms / 1000).toFixed(2)} s${started ? `; ${started}` : ""}`);
    console.log(`permission requests: ${permissions.length ? permissions.join(" ") : "none"}; do calls run: ${dos.length}`);
    console.log("model API requests:");
    for (const line of summarizeRequests(requests, t0)) console.log(`  ${line}`);
    console.log("stdout:");
    for (const line of result.stdout.split("\n").filter(Boolean)) console.log(`  | ${line}`);
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
