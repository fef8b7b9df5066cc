#!/usr/bin/env node
// `npm run bench:smoke` (CI runs it after `npm test`): every benchmark script at its small
// `--smoke` size, so that none can rot unnoticed. Checks that each finishes (exit 0, within
// its time limit) and prints its figures, as numbers; it never judges the figures' values.
// The evaluator benchmark runs a second time with no Python, which must skip its comparison.
// (bench-goals.mjs only runs the scripts below one after another: it has no figures of its own.)
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const scripts = dirname(fileURLToPath(import.meta.url));
const number = String.raw`-?\d+(\.\d+)?`;

const runs = [
  {
    script: "bench-parse.mjs",
    expect: [`^patchwork .* ${number} MB/s$`, `^acorn .* ${number} MB/s$`, `^ratio .* ${number}× acorn`],
  },
  {
    script: "bench-eval.mjs",
    expect: [`^Python: `, `^loop( +${number} ms){2} +${number}  \\|`, `^fib( +${number} ms){2} +${number}  \\|`, `^start-up: .* ${number} ms`],
  },
  {
    script: "bench-eval.mjs",
    env: { PYTHON: join(scripts, "no-such-python3") },
    expect: [`^Python comparison skipped: .* not found`, `^loop +${number} ms  \\| +${number} ms$`, `^fib +${number} ms  \\| +${number} ms$`],
  },
  {
    script: "bench-agent.mjs",
    expect: [
      `^ +ratio: ${number} \\[${number}–${number}\\]×[^]*^ +ratio: ${number} \\[`,
      `CPU per think: client ${number} µs`,
      `^ +http : ${number} ms per do call \\(plus ${number} ms`,
      `^ +stdio: ${number} ms per do call \\(plus ${number} ms`,
      `^ +growth: heapUsed ${number} MB, rss ${number} MB`,
    ],
  },
  {
    script: "bench-startup.mjs",
    expect: [
      `^node -e 0 +${number} ms +${number} ms`,
      `^patchwork run hello.pw \\(edited\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork run hello.pw \\(first\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork run hello.pw \\(no cache\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork run hello.pw \\(warm\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork check hello.pw \\(edited\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork check hello.pw \\(no cache\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork check hello.pw \\(warm\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork --version +${number} ms +${number}× +${number} ms +${number}×`,
      `^patchwork fmt --check hello.pw \\(warm\\) +${number} ms +${number}× +${number} ms +${number}×`,
      `^  the same, no Node compile cache +${number} ms +${number}× +${number} ms +${number}×`,
      `^tables( +${number} / ${number}){5}$`,
      `^full( +${number} / ${number}){5}$`,
    ],
  },
  {
    script: "bench-agent-start.mjs",
    expect: [`^this build: runtime import +${number} ms +${number} ms$`, `^this build: run nested\\.json +${number} ms +${number} ms$`, `^this build: run nested\\.json \\(no cache\\) +${number} ms +${number} ms$`],
  },
  {
    script: "bench-workers.mjs",
    expect: [
      `^ +ratio: run ${number}×, thinks ${number}×`,
      `^ +speed-up vs in sequence: computation ${number}×, run ${number}×`,
      `^ +per worker: wall ${number} \\[`,
      `rss per worker: ${number} \\[`,
    ],
  },
  {
    script: "bench-trace.mjs",
    expect: [
      `^ +overhead: time [-+]${number}%, CPU [-+]${number}%`,
      `^ +the trace writer's own CPU \\(${number} events per think\\): ${number} µs per think`,
      `^ +in process: no-agent ${number} \\[.*replay ${number} \\[`,
      `^ +CLI \\(start-up included\\): --no-agent ${number} \\[.*--replay ${number} \\[`,
    ],
  },
  {
    script: "bench-idle-workers.mjs",
    expect: [
      `^${number} workers waiting in receive: rss ${number} MB \\(whole process; one worker: ${number} MB\\)`,
      `^per waiting worker: ${number} MB \\[${number}–${number}\\]`,
      `^${number} empty Node worker threads in a bare process: rss ${number} MB`,
      `^a ${number}-function program \\(${number} KB\\): ${number} workers waiting: rss ${number} MB, per waiting worker ${number} MB`,
    ],
  },
  {
    script: "bench-outage.mjs",
    expect: [
      `^no outage: wall ${number} s, ${number} retries`,
      `^${number} s outage: wall ${number} s, ${number} retries, governor limit down to ${number}`,
      `^extra wall time beyond the outage: ${number} s \\(${number}% of the outage\\)`,
    ],
  },
  {
    script: "bench-trace-read.mjs",
    expect: [
      `^trace: ${number} MB, [\\d,]+ records`,
      `^tree +${number} s wall, ${number} s CPU, ${number} MB/s, peak rss ${number} MB; ${number} lines printed`,
      `^mermaid +${number} s wall, .* peak rss ${number} MB; ${number} KB written`,
      `^html +${number} s wall, .* peak rss ${number} MB; ${number} KB written`,
    ],
  },
  {
    script: "bench-acp.mjs",
    expect: [
      `^ +first chunk: direct ${number} ms, through patchwork acp ${number} ms, added ${number} ms`,
      `^ +end of turn: direct ${number} ms, through patchwork acp ${number} ms, added ${number} ms`,
      `^ +CPU of the proxy process: ${number} ms per turn`,
      `^ +proxy rss: ${number} MB after the first, ${number} MB after ${number} more, ${number} MB after ${number} more; growth ${number} MB`,
    ],
  },
  {
    script: "bench-mcp.mjs",
    expect: [
      `^ +patchwork run greeter.pw greet Ada 3: ${number} ms$`,
      `^ +tools/call greet through patchwork mcp: ${number} ms \\(${number}× the run; goal ≤ 2×\\)$`,
      `^ +server rss: ${number} MB after 10 warm-up calls, .*; growth ${number} MB$`,
      `^ +tools/call muse, later calls \\(the same agent process\\): ${number} ms \\(${number}× the run\\)$`,
    ],
  },
  {
    // Needs redis-server (CI installs it before bench:smoke); without it, the script says it skipped.
    script: "bench-fleet.mjs",
    expect: [`^(overhead per task through the queue: ${number} ms|fleet benchmark skipped)`, `^(2 workers: 8 tasks of a 2-s think in ${number} s|fleet benchmark skipped)`],
  },
  {
    script: "bench-lsp.mjs",
    expect: [
      `^full check .* median ${number} ms CPU$`,
      `^keystroke in process .* median ${number} ms, p95 ${number} ms CPU$`,
      `^keystroke to publishDiagnostics over stdio: median ${number} ms, p95 ${number} ms wall$`,
    ],
  },
  {
    script: "bench-progress.mjs",
    expect: [
      `^for over a list +${number} ms$`,
      `^for over a range \\(in a function\\) +${number} ms$`,
      `^ +[\\d,]+ items: ${number} ms \\| ${number} ms +\\(${number}%\\) +CPU ${number} \\| ${number} ms \\(${number}%\\) +plan: ${number} updates, [\\d,]+ bytes per turn$`,
    ],
  },
  {
    script: "bench-hostile.mjs",
    expect: [
      `^load average ${number} ${number} ${number}`,
      `^  think \\{ do \\{ x N, one line( +${number} ms)+; per 1k: ${number} → ${number} ms$`,
      `^  N=${number}: ran; parse ${number} s, run ${number} s; heap after parse ${number} MB \\(${number} KB per statement\\), peak rss ${number} MB$`,
      `^diagnostics: ${number} unterminated .* ${number} characters rendered in ${number} ms$`,
      `^servers: scanning a ${number} MB line .* \\(${number} MB/s\\)$`,
    ],
  },
];

let failed = 0;
for (const { script, env = {}, expect } of runs) {
  const label = `${script}${Object.keys(env).length ? ` (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(scripts, script), "--smoke"], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 180_000, // a hang, not a slow machine: ≈10 s each when the machine is quiet
  });
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  const problems = [];
  if (r.error) problems.push(`did not finish: ${r.error.message}`);
  else if (r.status !== 0) problems.push(`exit ${r.status ?? r.signal}`);
  for (const pattern of expect) if (!new RegExp(pattern, "m").test(r.stdout)) problems.push(`no line matching /${pattern}/`);
  const bad = /\b(NaN|Infinity|undefined)\b/.exec(r.stdout);
  if (bad) problems.push(`prints "${bad[1]}"`);
  if (problems.length === 0) {
    console.log(`ok    ${label} (${seconds} s)`);
    continue;
  }
  failed++;
  console.log(`FAIL  ${label} (${seconds} s): ${problems.join("; ")}`);
  console.log(`--- stdout\n${r.stdout}--- stderr\n${r.stderr}---`);
}
if (failed > 0) {
  console.log(`${failed} benchmark script(s) failed their smoke run`);
  process.exit(1);
}
