// Shared helpers for the agent tests: scripted agents in temp files, runs through the
// evaluator thread with the stand-in evaluator (or the real interpreter), process checks.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runWithAgent, type RunEvent, type RunWithAgentOptions, type RunWithAgentResult } from "../dist/index.js";

export const agentBin = fileURLToPath(new URL("../bin/patchwork-test-agent.js", import.meta.url));
export const fakeEvaluator = fileURLToPath(new URL("./fixtures/fake-evaluator.mjs", import.meta.url));
export const scratch = mkdtempSync(join(tmpdir(), "pw-agent-test-"));

let scripts = 0;

/** Writes a test agent script and returns the agent command line. */
export function scriptedAgent(script: object): string {
  const file = join(scratch, `script-${++scripts}.json`);
  writeFileSync(file, JSON.stringify(script));
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(agentBin)} ${JSON.stringify(file)}`;
}

export interface Run extends RunWithAgentResult {
  events: RunEvent[];
  agentPid: number | undefined;
  stderr: string;
}

/** Runs a Threadbare JSON program with the stand-in evaluator and the scripted agent. */
export async function runThreadbare(
  program: object,
  script: object,
  options: Partial<RunWithAgentOptions> = {},
): Promise<Run> {
  return runWith(JSON.stringify(program), "program.json", script, { evaluatorModule: fakeEvaluator, ...options });
}

export async function runWith(
  source: string,
  fileName: string,
  script: object,
  options: Partial<RunWithAgentOptions> = {},
): Promise<Run> {
  const events: RunEvent[] = [];
  const result = await runWithAgent({
    source,
    fileName,
    cwd: scratch,
    agent: { command: scriptedAgent(script) },
    writeOutput: false,
    timeoutMs: 20_000,
    ...options,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  const started = events.find((e) => e.type === "agent-started");
  const stderr = events
    .filter((e): e is Extract<RunEvent, { type: "agent-stderr" }> => e.type === "agent-stderr")
    .map((e) => e.text)
    .join("");
  return { ...result, events, agentPid: started?.type === "agent-started" ? started.pid : undefined, stderr };
}

/** Living (non-zombie) processes as [pid, pgid] pairs, from /proc. */
function processes(): [number, number][] {
  const out: [number, number][] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || fields[0] === "X") continue;
      out.push([Number(name), Number(fields[2])]);
    } catch {
      /* gone */
    }
  }
  return out;
}

/** True while any living process of the group led by `pid` exists (zombies do not count). */
export function groupAlive(pid: number): boolean {
  return processes().some(([, pgid]) => pgid === pid);
}

export function pidAlive(pid: number): boolean {
  return processes().some(([p]) => p === pid);
}

export function codes(run: RunWithAgentResult): string[] {
  return run.diagnostics.map((d) => d.code);
}

// ─── Threadbare program builders ───
export const print = (message: string) => ({ Print: { message } });
export const block = (...children: object[]) => ({ Block: { children } });
export const think = (prompt: string, children: object[] = [], extra: object = {}) => ({
  Think: { think: { prompt, children, ...extra } },
});
