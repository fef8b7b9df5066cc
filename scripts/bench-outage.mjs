#!/usr/bin/env node
// A worker batch through a model outage (npm run bench:outage; issue 32): `patchwork run` (the
// real binary) of N documents, a worker and a think each, `--max-workers 8`, with the scripted
// agent answering each think after a 2 s turn. Once as is, once with an outage: every prompt
// that arrives in the L seconds from the first one is answered with Claude Code's
// "API Error: 529 Overloaded" (what it reports once its own retries are spent). Prints both
// wall times, the retries, and what the outage cost beyond its own length.
// Full size: 40 documents, a 60 s outage, the default retry schedule (5, 10, 20, 40, 60, 60, 60, 60 s);
// --smoke: 6 documents, a 2 s outage, retries from 0.3 s.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { size, smoke } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "packages/cli/bin/patchwork.js");
const testAgent = join(root, "packages/agent/bin/patchwork-test-agent.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-outage-"));
const docs = size(40, 6);
// PW_OUTAGE_MS: another outage length (e.g. 300000 for the issue's 5-minute outage).
const outageMs = process.env.PW_OUTAGE_MS ? Number(process.env.PW_OUTAGE_MS) : size(60_000, 2_000);
const turnMs = size(2_000, 200);
const OVERLOADED = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

writeFileSync(
  join(dir, "batch.pw"),
  `worker categorize(doc) {
    var r = think {
        Categorize document \${doc}.
    }
    return "\${doc}: \${r}"
}
var tasks = []
for d in 1...${docs} {
    tasks.push(categorize("doc\${d}"))
}
print(len(self.delegate(tasks).await))
`,
);

function run(name, outage) {
  const script = { fallback: { steps: [{ sleep: turnMs }, { reply: "news" }] }, ...(outage ? { outage: { ms: outage, error: OVERLOADED } } : {}) };
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(script));
  const agent = `"${process.execPath}" "${testAgent}" "${join(dir, `${name}.json`)}"`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, "run", "batch.pw", "--agent", agent, "--max-workers", "8", "--trace", `${name}.jsonl`], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, ...(smoke ? { PATCHWORK_RETRY_DELAY_MS: "300" } : {}) },
    timeout: 900_000,
  });
  const wallMs = performance.now() - t0;
  if (r.status !== 0 || r.stdout.trim() !== String(docs)) throw new Error(`${name}: exit ${r.status}\n${r.stdout}\n${r.stderr.slice(-2000)}`);
  const records = readFileSync(join(dir, `${name}.jsonl`), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const retries = records.filter((x) => x.type === "think-retry").length;
  const limits = records.filter((x) => x.type === "governor").map((x) => x.limit);
  return { wallMs, retries, lowest: limits.length ? Math.min(...limits) : null };
}

const s = (ms) => (ms / 1000).toFixed(1);
console.log(`${docs} documents, --max-workers 8, ${turnMs} ms turns, load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
const base = run("base", 0);
console.log(`no outage: wall ${s(base.wallMs)} s, ${base.retries} retries`);
const out = run("outage", outageMs);
const extra = out.wallMs - base.wallMs - outageMs;
console.log(`${s(outageMs)} s outage: wall ${s(out.wallMs)} s, ${out.retries} retries, governor limit down to ${out.lowest ?? "-"}`);
console.log(`extra wall time beyond the outage: ${s(extra)} s (${((100 * extra) / outageMs).toFixed(0)}% of the outage)`);
