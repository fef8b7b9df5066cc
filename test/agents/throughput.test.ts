/**
 * A document batch with real Claude Code at several `--max-workers` (issue 32, docs/benchmarks.md
 * "A batch at 4, 8 and 16 workers"): N documents, a worker and a think each, 2-second turns
 * of the fake API. Per setting: wall time, thinks per minute, the peak RSS of the run's whole
 * process tree, the governor's holds. The goal: 16 workers never slower than 8 (the governor
 * holds new sessions while the machine is saturated). Runs only when PW_BATCH_DOCS is set
 * (`PW_BATCH_DOCS=200 npx vitest run --config vitest.agents.config.ts test/agents/throughput.test.ts`);
 * PW_BATCH_WORKERS picks the settings (default 4,8,16).
 */
import { loadavg } from "node:os";
import { expect, it } from "vitest";
import { describeRun, figure, installed, MB, runAgent } from "./harness.js";
import { claude } from "./setups.js";

const docs = Number(process.env.PW_BATCH_DOCS ?? 0);
const settings = (process.env.PW_BATCH_WORKERS ?? "4,8,16").split(",").map(Number);

const source = (n: number) => `worker categorize(doc) {
    var r = think {
        Categorize document \${doc} in one word.
    }
    return r
}
var tasks = []
for d in 1...${n} {
    tasks.push(categorize("doc\${d}"))
}
print(len(self.delegate(tasks).await))
`;

for (const workers of settings) {
  const runs = docs > 0 && installed("claude-agent-acp");
  const title = `Claude Code: ${docs} documents at --max-workers ${workers}`;
  it.runIf(runs)(runs ? title : `${title} (skipped: a benchmark, set PW_BATCH_DOCS; needs claude-agent-acp)`, async () => {
    const load = loadavg()[0]!.toFixed(1);
    const r = await runAgent(claude, {
      source: source(docs),
      args: ["--max-workers", String(workers), "--verbose"],
      rules: [{ when: "Categorize document", delayMs: 2000, reply: { text: "news" } }],
      timeoutMs: 3_600_000,
      sampleEveryMs: 500,
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe(`${docs}\n`);
    const peak = Math.max(...r.samples.map((s) => s.cliRss + s.agentRss));
    const holds = (r.stderr.match(/\[holding new thinks \((cpu|memory)\)/g) ?? []).length;
    const tag = `claude, ${docs} documents, --max-workers ${workers}`;
    figure(tag, "wall (s)", (r.ms / 1000).toFixed(0));
    figure(tag, "thinks per minute", ((docs * 60_000) / r.ms).toFixed(1));
    figure(tag, "peak RSS of the process tree (MB)", (peak / MB).toFixed(0));
    figure(tag, "processes at most", Math.max(...r.samples.map((s) => s.processes)));
    figure(tag, "CPU of the run's processes (s)", (r.cpuTotalMs / 1000).toFixed(0));
    figure(tag, "machine holds", holds);
    figure(tag, "load average before / after", `${load} / ${loadavg()[0]!.toFixed(1)}`);
  }, 3_700_000);
}
