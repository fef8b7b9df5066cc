/**
 * The real-agent suite's harness: runs `patchwork run FILE --agent <real adapter>` as a real
 * child process (its own process group) against a fake model API on 127.0.0.1, with HOME,
 * XDG and config folders in a fresh temp directory, and reports what happened: stdout,
 * stderr, exit code, duration, the fake's requests, RSS samples of the CLI and of the agent's
 * whole process tree, and every process of the run still alive afterwards.
 *
 * An agent's test file only supplies an `AgentSetup`: its `--agent` value, its fake API
 * (fakes/*.ts) and its environment. The adapters are installed in test/agents/node_modules
 * (npm ci --prefix test/agents); their bin folder is first on the run's PATH, so the CLI's
 * presets (`--agent claude`) find them.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { FakeApi, LoggedRequest, Rule } from "./fakes/server.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The CLI under test; PATCHWORK_BIN: another build's launcher (a copy kept inside the repository), to compare builds. */
export const CLI = process.env.PATCHWORK_BIN || join(REPO, "packages/cli/bin/patchwork.js");
export const ADAPTER_BIN = join(REPO, "test/agents/node_modules/.bin");

/** Whether an adapter's command is installed (npm ci --prefix test/agents). */
export function installed(command: string): boolean {
  return existsSync(join(ADAPTER_BIN, command));
}

/** The folders of one run, all inside its temp directory. */
export interface RunDirs {
  /** The temp directory (removed after the run). */
  root: string;
  /** HOME of the run (XDG_*_HOME are under it). */
  home: string;
  /** The program's and the agent's working directory. */
  work: string;
}

export interface AgentSetup {
  /** Short name used in test titles and figures: `claude`, `codex`, `gemini`. */
  name: string;
  /** The `--agent` value: a preset name or a command line. */
  agent: string;
  /** Starts the agent's fake model API with the given rules. */
  startFake(rules: Rule[]): Promise<FakeApi>;
  /** The agent's own environment (API base URL and key, config dirs…); may write config files into `dirs`. */
  env(fake: FakeApi, dirs: RunDirs): Record<string, string>;
}

export interface RunOptions {
  /** A program file (absolute, or relative to the repository) … */
  program?: string;
  /** … or the source of a `.pw` program, written to the run's work folder. */
  source?: string;
  rules: Rule[];
  /** Writes files into the run's folders before it starts (e.g. the agent's settings). */
  prepare?: (dirs: RunDirs) => void;
  /** Extra CLI arguments after `run FILE --agent …`. */
  args?: string[];
  /** Kill the run's process group after this long (default 120 s). */
  timeoutMs?: number;
  /** Sends SIGINT to the CLI's process group (as Ctrl-C does) once this is true; checked every sample. */
  interruptWhen?: (fake: FakeApi) => boolean;
  /** Milliseconds between RSS samples (default 250). */
  sampleEveryMs?: number;
}

export interface Sample {
  /** Milliseconds since the start of the run. */
  ms: number;
  /** Model requests the fake had answered or was answering. */
  modelRequests: number;
  /** RSS of the CLI process, bytes. */
  cliRss: number;
  /** RSS of every other process of the run (the agent's whole tree) older than a second, bytes. */
  agentRss: number;
  /** CPU time used so far by the run's processes, and by those they reaped, ms. */
  cpuMs: number;
  processes: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
  interruptedAtMs?: number;
  requests: LoggedRequest[];
  modelRequests: LoggedRequest[];
  /** How many times each rule fired. */
  hits: number[];
  samples: Sample[];
  /** The names in the run's work folder (the program's and the agent's cwd) after the run. */
  filesAfter: string[];
  /** Processes of the run still alive 5 s after the CLI exited (killed by the harness afterwards). */
  leftovers: { pid: number; cmd: string }[];
  /** CPU time of the run's processes, each counted once (`CpuTally`, sampled every `sampleEveryMs`), ms. */
  cpuTotalMs: number;
}

/** CPU time of a process and of its reaped children (utime+stime+cutime+cstime), ms; `own`: its own only (utime+stime). */
function cpuMsOf(pid: string, own = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (own ? [11, 12] : [11, 12, 13, 14]).reduce((sum, i) => sum + Number(fields[i]), 0) * 10; // 100 ticks per second
}

/**
 * The CPU time of a run's processes, each counted once: the most each process (by pid) was
 * seen to have used of its own (reaped children are not added to their parent, so none is
 * counted twice). What a process uses after its last sample is missed: sample often.
 */
export class CpuTally {
  private readonly most = new Map<number, number>();

  /** Samples the processes marked `PW_AGENT_TEST_RUN=marker`. */
  sample(marker: string): void {
    for (const p of markedProcesses(marker)) this.count(p);
  }

  /** Counts one process as read from /proc. */
  count(p: { pid: number; ownCpuMs: number }): void {
    this.most.set(p.pid, Math.max(this.most.get(p.pid) ?? 0, p.ownCpuMs));
  }

  get totalMs(): number {
    return [...this.most.values()].reduce((sum, ms) => sum + ms, 0);
  }
}

/** Milliseconds since process `pid` started (its starttime, field 22 of /proc/PID/stat, against /proc/uptime). */
function ageMsOf(pid: string): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  const uptimeS = Number(readFileSync("/proc/uptime", "latin1").split(" ")[0]);
  return uptimeS * 1000 - startTicks * 10; // 100 ticks per second
}

/** Processes whose environment holds `NAME=value` (the run's marker), with their RSS, CPU time and age. */
function markedProcesses(marker: string): { pid: number; rss: number; cpuMs: number; ownCpuMs: number; ageMs: number; cmd: string }[] {
  const found = [];
  const needle = `PW_AGENT_TEST_RUN=${marker}\0`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, "latin1").includes(needle)) continue;
      const rss = Number(readFileSync(`/proc/${entry}/statm`, "latin1").split(" ")[1]) * 4096;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0").join(" ").trim();
      found.push({ pid: Number(entry), rss, cpuMs: cpuMsOf(entry), ownCpuMs: cpuMsOf(entry, true), ageMs: ageMsOf(entry), cmd });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Variables of the outer environment that could point an agent at a real account. */
const SCRUB = /^(ANTHROPIC_|CLAUDE_|OPENAI_|CODEX_|GEMINI_|GOOGLE_|OPENCODE_|QWEN_|COPILOT_|GH_TOKEN$|GITHUB_TOKEN$|PATCHWORK_AGENT$|XDG_)/;

export function baseEnv(dirs: RunDirs, marker: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUB.test(k)) env[k] = v;
  return {
    ...env,
    PATH: `${ADAPTER_BIN}:${env.PATH ?? "/usr/bin:/bin"}`,
    HOME: dirs.home,
    XDG_CONFIG_HOME: join(dirs.home, ".config"),
    XDG_CACHE_HOME: join(dirs.home, ".cache"),
    XDG_DATA_HOME: join(dirs.home, ".local/share"),
    XDG_STATE_HOME: join(dirs.home, ".local/state"),
    NO_COLOR: "1",
    PW_AGENT_TEST_RUN: marker,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs one program through the real agent and returns everything a test asserts on. */
export async function runAgent(setup: AgentSetup, options: RunOptions): Promise<RunResult> {
  const root = mkdtempSync(join(tmpdir(), `pw-agents-${setup.name}-`));
  const dirs: RunDirs = { root, home: join(root, "home"), work: join(root, "work") };
  mkdirSync(dirs.home, { recursive: true });
  mkdirSync(dirs.work, { recursive: true });
  const fake = await setup.startFake(options.rules);
  const marker = randomBytes(8).toString("hex");
  try {
    const env = { ...baseEnv(dirs, marker), ...setup.env(fake, dirs) };
    options.prepare?.(dirs);
    let program = options.program ? resolve(REPO, options.program) : join(dirs.work, "program.pw");
    if (!options.program) writeFileSync(program, options.source ?? "");
    const args = [CLI, "run", program, "--agent", setup.agent, ...(options.args ?? [])];
    const result = await spawnAndWatch(args, env, dirs.work, marker, fake, options);
    const filesAfter = readdirSync(dirs.work);
    return { ...result, filesAfter, requests: fake.requests, modelRequests: fake.modelRequests(), hits: fake.rules.hits };
  } finally {
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  }
}

type Watched = Omit<RunResult, "requests" | "modelRequests" | "hits" | "filesAfter">;

async function spawnAndWatch(args: string[], env: Record<string, string>, cwd: string, marker: string, fake: FakeApi, options: RunOptions): Promise<Watched> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on("close", (code, signal) => done({ code, signal })),
  );
  const samples: Sample[] = [];
  const cpu = new CpuTally();
  let running = true;
  let timedOut = false;
  let interruptedAtMs: number | undefined;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {}
  };
  const timer = setTimeout(() => ((timedOut = true), killGroup("SIGKILL")), options.timeoutMs ?? 120_000);
  const sampler = (async () => {
    while (running) {
      const ms = performance.now() - started;
      const procs = markedProcesses(marker);
      const cli = procs.find((p) => p.pid === child.pid);
      // A process younger than a second is not counted: a fork shares its parent's pages until
      // it execs, and counts them again (Codex forks its 200 MB app-server for every shell).
      const settled = procs.filter((p) => p.pid !== child.pid && p.ageMs >= 1000);
      const agentRss = settled.reduce((sum, p) => sum + p.rss, 0);
      const cpuMs = procs.reduce((sum, p) => sum + p.cpuMs, 0);
      for (const p of procs) cpu.count(p);
      samples.push({ ms, modelRequests: fake.modelRequests().length, cliRss: cli?.rss ?? 0, agentRss, cpuMs, processes: procs.length });
      if (options.interruptWhen && interruptedAtMs === undefined && options.interruptWhen(fake)) {
        interruptedAtMs = ms;
        killGroup("SIGINT");
      }
      await sleep(options.sampleEveryMs ?? 250);
    }
  })();
  const { code, signal } = await exited;
  const ms = performance.now() - started;
  running = false;
  clearTimeout(timer);
  await sampler;
  const leftovers = await leftoversOf(marker);
  return { code, signal, stdout, stderr, ms, timedOut, interruptedAtMs, samples, leftovers, cpuTotalMs: cpu.totalMs };
}

/** The run's processes still alive 5 s after the CLI exited; kills them so no test leaks. */
export async function leftoversOf(marker: string): Promise<{ pid: number; cmd: string }[]> {
  let alive = markedProcesses(marker);
  for (let waited = 0; alive.length > 0 && waited < 5000; waited += 100) {
    await sleep(100);
    alive = markedProcesses(marker);
  }
  for (const p of alive) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
  return alive.map(({ pid, cmd }) => ({ pid, cmd }));
}

/** Peak of `agentRss + cliRss` over the samples taken while at least `from` model requests were done. */
export function peakRss(result: RunResult, from = 0, to = Infinity): number {
  const inRange = result.samples.filter((s) => s.modelRequests >= from && s.modelRequests < to);
  return Math.max(0, ...inRange.map((s) => s.agentRss + s.cliRss));
}

/**
 * Median of `agentRss + cliRss` over the same samples as `peakRss`. An agent that starts a
 * process per session (Claude Code) has two of them alive now and then, for a sample or two:
 * the peak of a few thinks swings by ±150 MB with where those moments fall, the median shows
 * what the run keeps.
 */
export function medianRss(result: RunResult, from = 0, to = Infinity): number {
  const inRange = result.samples.filter((s) => s.modelRequests >= from && s.modelRequests < to).map((s) => s.agentRss + s.cliRss);
  return median(inRange);
}

/**
 * The least RSS of the run (its CLI and the agent's processes) between model requests `from`
 * and `to`: the memory it keeps. A session made ahead for the next think is a process of its own
 * for Claude Code, counted once it is a second old (spawnAndWatch), so whether it shows in a
 * median depends on how long a think takes; at some moment of each think none is counted, and a
 * process or session kept per think stays in every sample. Only samples with the CLI and the
 * agent's processes alive count (not the run's start or its end).
 */
export function leastRss(result: RunResult, from = 0, to = Infinity): number {
  const live = result.samples.filter((s) => s.modelRequests >= from && s.modelRequests < to && s.cliRss > 0 && s.agentRss > 0);
  return Math.min(...live.map((s) => s.agentRss + s.cliRss));
}

export const MB = 1024 * 1024;

/**
 * A measured figure, printed as `[figure] <agent> · <what>: <value>` and, when
 * PW_AGENT_FIGURES names a file, appended to it as a JSON line (npm run bench:agents).
 */
export function figure(agent: string, what: string, value: string | number): void {
  console.log(`[figure] ${agent} · ${what}: ${value}`);
  const file = process.env.PW_AGENT_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify({ agent, what, value })}\n`);
}

/** How many thinks the loop tests run: 20 in CI, PW_AGENT_THINKS for a benchmark (100). */
export const LOOP_THINKS = Number(process.env.PW_AGENT_THINKS ?? 20);

/** The model requests for the thinks' own turns (not side requests such as session titles). */
export const turnRequests = (r: RunResult) => r.modelRequests.filter((q) => !q.model?.side);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const seconds = (ms: number) => (ms / 1000).toFixed(2);

/**
 * The figures of a loop of `thinks` thinks with one `do` each (reported with `figure`):
 * model requests per think; time per think in the steady state, split by the fake's clock
 * into a think's first turn request → its tool-result request (the `do` round trip inside the
 * agent) and → the next think's first request (final answer, session close, new session,
 * prompt); peak RSS of the whole run over thinks 3-6 (`early`) and over the last four (`late`).
 */
export function loopFigures(
  agent: string,
  r: RunResult,
  thinks: number,
): { early: number; late: number; earlyMedian: number; lateMedian: number; earlyLeast: number; lateLeast: number } {
  const perThink = r.modelRequests.length / thinks;
  const early = peakRss(r, 2 * perThink, 6 * perThink);
  const late = peakRss(r, (thinks - 4) * perThink);
  const earlyMedian = medianRss(r, 2 * perThink, 6 * perThink);
  const lateMedian = medianRss(r, (thinks - 4) * perThink);
  const earlyLeast = leastRss(r, 2 * perThink, 6 * perThink);
  const lateLeast = leastRss(r, (thinks - 4) * perThink, thinks * perThink);
  const starts = turnRequests(r).filter((q) => !q.model?.afterTool).map((q) => q.time);
  const results = turnRequests(r).filter((q) => q.model?.afterTool).map((q) => q.time);
  // CPU per think (all processes of the run): a figure the machine's load hardly changes.
  const cpuAt = (requests: number) => r.samples.find((s) => s.modelRequests >= requests)?.cpuMs ?? NaN;
  const cpuPerThink = (cpuAt((thinks - 1) * perThink) - cpuAt(2 * perThink)) / (thinks - 3);
  figure(agent, `model requests per think (loop of ${thinks})`, perThink.toFixed(2));
  figure(agent, "CPU time per think, all processes of the run (s)", seconds(cpuPerThink));
  figure(agent, "time per think, steady state (s)", seconds((starts.at(-1)! - starts[1]) / (starts.length - 2)));
  figure(agent, "  of which: turn request → tool-result request, median (s)", seconds(median(results.map((t, k) => t - starts[k]))));
  figure(agent, "  of which: tool-result request → next think's first request, median (s)", seconds(median(starts.slice(1).map((t, k) => t - results[k]))));
  figure(agent, "peak RSS of the run, thinks 3-6 (MB)", (early / MB).toFixed(0));
  figure(agent, `peak RSS of the run, thinks ${thinks - 3}-${thinks} (MB)`, (late / MB).toFixed(0));
  figure(agent, `median RSS of the run, thinks 3-6 → ${thinks - 3}-${thinks} (MB)`, `${(earlyMedian / MB).toFixed(0)} → ${(lateMedian / MB).toFixed(0)}`);
  figure(agent, `least RSS of the run, thinks 3-6 → ${thinks - 3}-${thinks} (MB)`, `${(earlyLeast / MB).toFixed(0)} → ${(lateLeast / MB).toFixed(0)}`);
  const cliPeak = (from: number, to = Infinity) =>
    Math.max(0, ...r.samples.filter((s) => s.modelRequests >= from && s.modelRequests < to).map((s) => s.cliRss));
  figure(agent, `of which patchwork's own RSS, thinks 3-6 → ${thinks - 3}-${thinks} (MB)`, `${(cliPeak(2 * perThink, 6 * perThink) / MB).toFixed(0)} → ${(cliPeak((thinks - 4) * perThink) / MB).toFixed(0)}`);
  figure(agent, "processes of the run at most", Math.max(...r.samples.map((s) => s.processes)));
  figure(agent, "load average while measuring (2 cores)", loadavg()[0].toFixed(1));
  return { early, late, earlyMedian, lateMedian, earlyLeast, lateLeast };
}

/** A short description of a run, for assertion messages. */
export function describeRun(result: RunResult): string {
  const requests = result.modelRequests
    .map((r) => `  ${r.model?.afterTool ? "tool result" : "user"} ${JSON.stringify(r.model?.latest.slice(0, 80))} → ${r.decision?.kind === "tool" ? `${r.decision.name}(${JSON.stringify(r.decision.input)})` : JSON.stringify(r.decision && "text" in r.decision ? r.decision.text : "")} [${r.decision?.why}]`)
    .join("\n");
  return `exit ${result.code ?? result.signal} in ${(result.ms / 1000).toFixed(1)} s\n--- stdout\n${result.stdout}--- stderr\n${result.stderr.slice(-3000)}\n--- model requests\n${requests}`;
}

export interface AcpTurn {
  stopReason: string;
  /** From sending the prompt to its answer (ms). */
  ms: number;
  /** The turn's `agent_message_chunk` text. */
  text: string;
  updates: { sessionUpdate: string; [key: string]: unknown }[];
}

export interface AcpSessionResult {
  turns: AcpTurn[];
  code: number | null;
  stderr: string;
  requests: LoggedRequest[];
  modelRequests: LoggedRequest[];
  hits: number[];
  /** The permission requests that reached the editor (their tool call titles). */
  permissions: string[];
  leftovers: { pid: number; cmd: string }[];
}

/**
 * `patchwork acp --agent <real adapter>` as an editor runs it: a real child process, the
 * SDK's ACP client on its stdio, one session, the prompts one after the other; permission
 * requests that reach the editor are answered with `permission` (default: reject).
 */
export async function runAcpSession(
  setup: AgentSetup,
  options: { prompts: string[]; rules: Rule[]; permission?: "allow" | "reject"; timeoutMs?: number },
): Promise<AcpSessionResult> {
  const root = mkdtempSync(join(tmpdir(), `pw-agents-acp-${setup.name}-`));
  const dirs: RunDirs = { root, home: join(root, "home"), work: join(root, "work") };
  mkdirSync(dirs.home, { recursive: true });
  mkdirSync(dirs.work, { recursive: true });
  const fake = await setup.startFake(options.rules);
  const marker = randomBytes(8).toString("hex");
  const child = spawn(process.execPath, [CLI, "acp", "--agent", setup.agent], {
    cwd: dirs.work,
    env: { ...baseEnv(dirs, marker), ...setup.env(fake, dirs) },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  }, options.timeoutMs ?? 150_000);
  let current: AcpTurn["updates"] = [];
  const permissions: string[] = [];
  const connection = acp
    .client({ name: "patchwork-agent-suite" })
    .onNotification(acp.methods.client.session.update, ({ params }) => void current.push(params.update as AcpTurn["updates"][number]))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params.toolCall.title ?? "");
      const kind = options.permission === "allow" ? "allow_once" : "reject_once";
      const option = params.options.find((o) => o.kind === kind) ?? params.options[0]!;
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  const turns: AcpTurn[] = [];
  try {
    await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: dirs.work, mcpServers: [] });
    for (const text of options.prompts) {
      current = [];
      const sent = performance.now();
      const response = await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      const ms = performance.now() - sent;
      await sleep(100);
      const updates = current;
      const said = updates
        .map((u) => (u.sessionUpdate === "agent_message_chunk" ? ((u.content as { text?: string }).text ?? "") : ""))
        .join("");
      turns.push({ stopReason: response.stopReason, ms, text: said, updates });
    }
  } finally {
    connection.close();
    child.stdin.end();
  }
  const code = await exited;
  clearTimeout(timer);
  const leftovers = await leftoversOf(marker);
  await fake.close();
  rmSync(root, { recursive: true, force: true });
  return { turns, code, stderr, requests: fake.requests, modelRequests: fake.modelRequests(), hits: fake.rules.hits, permissions, leftovers };
}
