/**
 * The latency a user feels with a real agent (issue 26; docs/benchmarks.md, "Latency against
 * the agent's floor"). For each installed agent, in alternating rounds:
 *
 * - the **floor**: a minimal ACP client (scripts/lib/acp-floor.mjs, its own Node process) that
 *   starts the agent, opens one session with Patchwork's MCP `do` server and sends one prompt
 *   whose model calls `do` twice: as many model turns as the program below;
 * - `patchwork run examples/nested.json` (the seeds' nested categorization: two thinks, each
 *   calling one `do`), with sessions made ahead (the default) and without
 *   (`PATCHWORK_SESSIONS_AHEAD=0`), each with a trace whose records give the breakdown.
 *
 * Both sides' processes are sampled for their CPU time (on a machine with 2 cores, what a run
 * needs beyond the floor's CPU shows in its wall time), and Claude Code's adapter logs how long
 * each of its processes took to start (`sdk-initialize`).
 *
 * In the editor's panel (`patchwork acp --agent …`, the agent already running), a program with
 * the same two nested thinks is sent twice in one panel session, with sessions made ahead and
 * without: each prompt's time from sending it to its answer.
 *
 * The fake model answers at once, so what is measured is the toolchain's own waiting. Figures
 * only (`figure`), no bound asserted: the machine's load moves them. `npm run bench:real-agents
 * -- test/agents/latency.test.ts` prints them; PW_LATENCY_ROUNDS sets the rounds (default 1; the
 * bench script's default 3).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baseEnv, CpuTally, describeRun, figure, installed, REPO, runAcpSession, runAgent, type AgentSetup, type RunDirs } from "./harness.js";
import { claude, codex, gemini } from "./setups.js";

const ROUNDS = Number(process.env.PW_LATENCY_ROUNDS ?? 1);
const FLOOR = join(REPO, "scripts/lib/acp-floor.mjs");

const AGENTS: { setup: AgentSetup; command: string; args: string[] }[] = [
  { setup: claude, command: "claude-agent-acp", args: [] },
  { setup: codex, command: "codex-acp", args: [] },
  { setup: gemini, command: "gemini", args: ["--acp", "--skip-trust"] },
];

const NESTED_RULES = [
  { when: "Categorize this document", afterTool: false, reply: { call: 0 } },
  { when: "Extract the dollar amount", afterTool: false, reply: { call: 0 } },
  { afterTool: true, reply: { text: "done" } },
];

const FLOOR_PROMPT = "FLOOR: categorize this document with the do tool (number 0), then extract its amount with do(0) again.";
const FLOOR_RULES = [
  { when: "Amount", afterTool: true, reply: { text: "done" } },
  { when: "Categorized", afterTool: true, reply: { call: 0 } },
  { when: "FLOOR", afterTool: false, reply: { call: 0 } },
];

/** How often the CPU time of a run's processes is sampled, floor and patchwork alike (ms). */
const CPU_SAMPLE_MS = 50;

interface FloorRun {
  ms: number;
  marks: { initialized: number; sessionNew: number; sessionReady: number; answered: number };
  results: string[];
  /** Claude Code's adapter: the phases of its session/new (ms each), from its log. */
  phases: Record<string, number>;
  /** CPU time of the client and the agent's processes (`CpuTally`). */
  cpuMs: number;
}

/**
 * Claude Code's adapter writes the phases of each `session/new` to `$CLAUDE_AGENT_LOGS/agent.log`
 * (`[session/create] sessionId=… phase=sdk-initialize durationMs=N`); both the floor and
 * patchwork's runs set it (an append per phase), so that the breakdown shows what each
 * Claude Code process took to start. Other agents ignore the variable.
 */
const agentLogs = (dir: string) => ({ CLAUDE_AGENT_LOGS: dir });

/** `sdk-initialize` (the Claude Code process's start) of each session, in the log's order (ms). */
function sdkInitializeMs(dir: string): number[] {
  const file = join(dir, "agent.log");
  if (!existsSync(file)) return [];
  return [...readFileSync(file, "utf8").matchAll(/\[session\/create\][^\n]*?phase=sdk-initialize durationMs=(\d+)/g)].map((m) => Number(m[1]));
}

/** One floor run: the minimal client as its own process, wall time from its spawn to its exit. */
async function runFloor(agent: (typeof AGENTS)[number]): Promise<FloorRun> {
  const root = mkdtempSync(join(tmpdir(), `pw-floor-${agent.setup.name}-`));
  const dirs: RunDirs = { root, home: join(root, "home"), work: join(root, "work") };
  mkdirSync(dirs.home, { recursive: true });
  mkdirSync(dirs.work, { recursive: true });
  const fake = await agent.setup.startFake(FLOOR_RULES);
  const marker = `floor-${randomBytes(6).toString("hex")}`;
  try {
    const env = { ...baseEnv(dirs, marker), ...agent.setup.env(fake, dirs), ...agentLogs(join(root, "agent-logs")) };
    const spec = { command: agent.command, args: agent.args, cwd: dirs.work, env, prompt: FLOOR_PROMPT };
    const cpu = new CpuTally();
    const started = performance.now();
    const child = spawn(process.execPath, [FLOOR, JSON.stringify(spec)], { cwd: dirs.work, env, stdio: ["ignore", "pipe", "inherit"] });
    const sampler = setInterval(() => cpu.sample(marker), CPU_SAMPLE_MS);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    await new Promise((done) => child.on("close", done));
    const ms = performance.now() - started;
    clearInterval(sampler);
    const report = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as FloorRun & { ok: boolean; error?: string; stderr?: string };
    expect(report.ok, `${report.error}\n${report.stderr}`).toBe(true);
    return { ms, marks: report.marks, results: report.results, phases: report.phases ?? {}, cpuMs: cpu.totalMs };
  } finally {
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  }
}

interface Breakdown {
  /** CLI start to the trace's start (the process, parsing the command line, loading the runtime). */
  cli: number;
  /** Trace start to `agent-started` (spawn and initialize, overlapped with the program's start). */
  agent: number;
  /** Per think: waiting for its session, its model turns (the think minus its session and do blocks), its do blocks. */
  thinks: { session: number; turns: number; dos: number; ahead: boolean }[];
  /** Last think's end to the end of the run (closing sessions, stopping the agent). */
  end: number;
}

type TraceRecord = { t: number; type: string; id?: number; think?: number; durationMs?: number; ahead?: boolean };

function breakdown(traceText: string, wallMs: number): Breakdown {
  const records = traceText.trim().split("\n").map((l) => JSON.parse(l) as TraceRecord);
  const first = (type: string, f: (r: TraceRecord) => boolean = () => true) => records.find((r) => r.type === type && f(r));
  const runEnd = first("run-end")!;
  const thinkIds = records.filter((r) => r.type === "think-start").map((r) => r.id!);
  const thinks = thinkIds.map((id) => {
    const start = first("think-start", (r) => r.id === id)!;
    const session = first("session", (r) => r.think === id);
    const end = first("think-end", (r) => r.id === id)!;
    const dos = records.filter((r) => r.type === "do-end" && r.think === id).reduce((sum, r) => sum + (r.durationMs ?? 0), 0);
    const waited = session ? session.t - start.t : 0;
    return { session: waited, turns: end.t - start.t - waited - dos, dos, ahead: Boolean(session?.ahead) };
  });
  const lastEnd = Math.max(...records.filter((r) => r.type === "think-end").map((r) => r.t));
  return { cli: wallMs - runEnd.t, agent: first("agent-started")?.t ?? NaN, thinks, end: runEnd.t - lastEnd };
}

/** The nested categorization as a panel program (Patchwork source): two thinks, each calling one do. */
const NESTED_PANEL = `{
  var kind = think {
    Categorize this document: a receipt for $542.00.
    do {
      print("Categorized as: RECEIPT")
      var amount = think {
        Extract the dollar amount from: a receipt for $542.00.
        do {
          print("Amount: $542.00")
        }
      }
    }
  }
  print("kind: " + kind)
}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const s = (ms: number) => (ms / 1000).toFixed(2);

for (const agent of AGENTS) {
  const present = installed(agent.command);
  describe.skipIf(!present)(`latency of ${agent.setup.name}${present ? "" : ` (skipped: ${agent.command} not installed)`}`, () => {
    it("nested categorization: patchwork against the agent's floor, with and without sessions made ahead", async () => {
      const floors: FloorRun[] = [];
      const runs: { ahead: boolean; ms: number; b: Breakdown; cpuMs: number; sdkInit: number[] }[] = [];
      const traceDir = mkdtempSync(join(tmpdir(), "pw-latency-trace-"));
      for (let round = 0; round < ROUNDS; round++) {
        floors.push(await runFloor(agent));
        for (const ahead of [true, false]) {
          const trace = join(traceDir, `r${round}-${ahead}.jsonl`);
          const logs = join(traceDir, `logs-r${round}-${ahead}`);
          const extra = { ...agentLogs(logs), ...(ahead ? {} : { PATCHWORK_SESSIONS_AHEAD: "0" }) };
          const r = await runAgent({ ...agent.setup, env: (f, d) => ({ ...agent.setup.env(f, d), ...extra }) }, {
            program: "examples/nested.json",
            rules: NESTED_RULES,
            args: ["--trace", trace],
            sampleEveryMs: CPU_SAMPLE_MS,
          });
          expect(r.code, describeRun(r)).toBe(0);
          expect(r.stdout).toContain("Amount: $542.00");
          runs.push({ ahead, ms: r.ms, b: breakdown(readFileSync(trace, "utf8"), r.ms), cpuMs: r.cpuTotalMs, sdkInit: sdkInitializeMs(logs) });
        }
      }
      rmSync(traceDir, { recursive: true, force: true });
      const name = agent.setup.name;
      const floor = median(floors.map((f) => f.ms));
      figure(name, `floor: minimal ACP client, one session, do twice (s, median of ${ROUNDS})`, s(floor));
      figure(name, "  floor: initialize / session/new / session ready / answered, since spawn (s)", ["initialized", "sessionNew", "sessionReady", "answered"].map((k) => s(median(floors.map((f) => f.marks[k as keyof FloorRun["marks"]])))).join(" / "));
      const phaseNames = [...new Set(floors.flatMap((f) => Object.keys(f.phases)))];
      if (phaseNames.length > 0)
        figure(name, "  floor: the agent's own session/new phases, median (ms)", phaseNames.map((p) => `${p} ${median(floors.map((f) => f.phases[p] ?? NaN))}`).join(", "));
      figure(name, "  floor: CPU time of the client and the agent's processes (s)", s(median(floors.map((f) => f.cpuMs))));
      for (const ahead of [true, false]) {
        const mine = runs.filter((r) => r.ahead === ahead);
        const ms = median(mine.map((r) => r.ms));
        const label = ahead ? "sessions made ahead" : "without sessions made ahead";
        figure(name, `patchwork run examples/nested.json, ${label} (s)`, `${s(ms)} = ${(ms / floor).toFixed(2)}× the floor`);
        const b = (f: (x: Breakdown) => number) => s(median(mine.map((r) => f(r.b))));
        figure(name, `  breakdown (${label}): CLI start / agent spawn+initialize`, `${b((x) => x.cli)} / ${b((x) => x.agent)}`);
        for (let k = 0; k < (mine[0]?.b.thinks.length ?? 0); k++) {
          const aheadCount = mine.filter((r) => r.b.thinks[k]?.ahead).length;
          figure(
            name,
            `  think ${k + 1}: waits for its session / model turns / do blocks (s)`,
            `${b((x) => x.thinks[k]?.session ?? NaN)} / ${b((x) => x.thinks[k]?.turns ?? NaN)} / ${b((x) => x.thinks[k]?.dos ?? NaN)} (made ahead in ${aheadCount} of ${mine.length})`,
          );
        }
        figure(name, `  end of the run after the last think (${label}, s)`, b((x) => x.end));
        figure(name, `  CPU time of the CLI and the agent's processes (${label}, s)`, s(median(mine.map((r) => r.cpuMs))));
        const inits = mine.map((r) => r.sdkInit).filter((x) => x.length > 0);
        if (inits.length > 0)
          figure(
            name,
            `  the agent's start of each Claude Code process, sdk-initialize (${label}, ms)`,
            inits[0]!.map((_, k) => `session ${k + 1}: ${median(inits.map((x) => x[k] ?? NaN))}`).join(", "),
          );
      }
      figure(name, "load average while measuring (2 cores)", loadavg()[0].toFixed(1));
    });
  });
}

for (const agent of AGENTS) {
  const present = installed(agent.command);
  describe.skipIf(!present)(`latency of ${agent.setup.name} in the panel${present ? "" : ` (skipped: ${agent.command} not installed)`}`, () => {
    it("a panel program's nested thinks, with and without sessions made ahead: the prompt's time to its answer", async () => {
      const times: Record<string, number[][]> = { on: [], off: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const ahead of [true, false]) {
          const setup: AgentSetup = { ...agent.setup, env: (f, d) => ({ ...agent.setup.env(f, d), ...(ahead ? {} : { PATCHWORK_SESSIONS_AHEAD: "0" }) }) };
          const r = await runAcpSession(setup, { prompts: [NESTED_PANEL, NESTED_PANEL], rules: NESTED_RULES });
          const why = `${r.stderr}\n${JSON.stringify(r.turns.map((t) => t.text))}`;
          expect(r.turns.map((t) => t.stopReason), why).toEqual(["end_turn", "end_turn"]);
          for (const turn of r.turns) expect(turn.text, why).toBe("Categorized as: RECEIPT\nAmount: $542.00\nkind: done\n");
          times[ahead ? "on" : "off"]!.push(r.turns.map((t) => t.ms));
        }
      }
      const name = agent.setup.name;
      for (const [key, label] of [["on", "sessions made ahead"], ["off", "without sessions made ahead"]] as const) {
        const mine = times[key]!;
        figure(name, `panel: nested program, first / second prompt of the session, ${label} (s, median of ${ROUNDS})`, `${s(median(mine.map((t) => t[0]!)))} / ${s(median(mine.map((t) => t[1]!)))}`);
      }
      figure(name, "load average while measuring the panel (2 cores)", loadavg()[0].toFixed(1));
    });
  });
}
