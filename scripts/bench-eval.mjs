#!/usr/bin/env node
// Evaluator benchmark: the same two programs in Patchwork and Python 3.
//   loop: 1,000,000 iterations of `s = s + i * 2`     fib: recursive fib(25)
// Each program runs in its own process. Printed per program:
//   - process wall time (start-up + parse + run), Patchwork through the CLI when it works
//     (`patchwork run FILE --no-agent`), else through a node script calling run();
//   - evaluation time alone (timed inside the process: Patchwork `Interpreter.run` on a
//     parsed program, Python `exec` of the compiled code), which is what the evaluator's
//     design controls;
//   and the ratios Patchwork / Python (goal ≤ 1.0). Best of N runs (default 3; BENCH_RUNS).
// Python is `python3` on PATH, or $PYTHON; without it the comparison is skipped (said so).
// `--smoke`: 10,000 iterations and fib(15), one run (see lib/bench.mjs).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { size, smoke } from "./lib/bench.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const work = join(root, ".bench");
mkdirSync(work, { recursive: true });
const RUNS = Number(process.env.BENCH_RUNS ?? size(3, 1));
const ITERATIONS = size(1000000, 10000);
const FIB = size(25, 15);
const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));

const programs = {
  loop: {
    pw: `var s = 0\nvar i = 0\nwhile i < ${ITERATIONS} {\n  s = s + i * 2\n  i = i + 1\n}\nprint(s)\n`,
    py: `s = 0\ni = 0\nwhile i < ${ITERATIONS}:\n    s = s + i * 2\n    i = i + 1\nprint(s)\n`,
    expect: String(ITERATIONS * (ITERATIONS - 1)),
  },
  fib: {
    pw: `fun fib(n) {\n  if n < 2 { return n }\n  return fib(n - 1) + fib(n - 2)\n}\nprint(fib(${FIB}))\n`,
    py: `def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\nprint(fib(${FIB}))\n`,
    expect: String(fib(FIB)),
  },
};

const python = process.env.PYTHON ?? "python3";
const pythonVersion = spawnSync(python, ["--version"], { encoding: "utf8" });
const hasPython = pythonVersion.status === 0;

// In-process timers: each prints the program's output, then "EVAL_MS <ms>" on stderr.
const pwTimer = join(work, "time-pw.mjs");
writeFileSync(
  pwTimer,
  `import { readFileSync } from "node:fs";
import { parse } from ${JSON.stringify(join(root, "packages/parser/dist/index.js"))};
import { Interpreter } from ${JSON.stringify(join(root, "packages/interpreter/dist/index.js"))};
const file = process.argv[2];
const { program } = parse(readFileSync(file, "utf8"), { fileName: file });
const t = performance.now();
new Interpreter().run(program, { fileName: file });
process.stderr.write("EVAL_MS " + (performance.now() - t) + "\\n");
`,
);
const pwRunner = join(work, "run-pw.mjs");
writeFileSync(
  pwRunner,
  `import { readFileSync } from "node:fs";
import { run } from ${JSON.stringify(join(root, "packages/interpreter/dist/index.js"))};
const file = process.argv[2];
const r = run(readFileSync(file, "utf8"), { fileName: file });
process.exitCode = r.ok ? 0 : 1;
`,
);
const pyTimer = join(work, "time-py.py");
writeFileSync(
  pyTimer,
  "import sys, time\nsrc = open(sys.argv[1]).read()\ncode = compile(src, sys.argv[1], 'exec')\nt = time.perf_counter()\nexec(code, {'__name__': '__main__'})\nsys.stderr.write('EVAL_MS %f\\n' % ((time.perf_counter() - t) * 1000))\n",
);

const cli = join(root, "packages/cli/bin/patchwork.js");
function cliWorks() {
  const hello = join(root, "examples/hello.pw");
  const r = spawnSync(process.execPath, [cli, "run", hello, "--no-agent"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.includes("Hello");
}
const useCli = cliWorks();

function wall(cmd, args, expect) {
  let best = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const out = execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const ms = performance.now() - t;
    if (expect !== undefined && out.trim() !== expect) throw new Error(`${cmd} ${args.join(" ")}: unexpected output ${out}`);
    best = Math.min(best, ms);
  }
  return best;
}

function evalTime(cmd, args) {
  let best = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(cmd, args, { encoding: "utf8" });
    const m = /EVAL_MS ([\d.]+)/.exec(r.stderr);
    if (!m) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
    best = Math.min(best, Number(m[1]));
  }
  return best;
}

const f = (ms) => `${ms.toFixed(1).padStart(9)} ms`;
const ratio = (a, b) => (a / b).toFixed(2).padStart(8);
/** One table row: the program's name, then its wall-time cells | its eval-time cells. */
const row = (name, wall, evals) => console.log(`${name.padEnd(8)}${wall.join("")}  |${evals.join("")}`);
console.log(`Patchwork via ${useCli ? "the CLI (patchwork run --no-agent)" : "run() from packages/interpreter/dist"}; best of ${RUNS}${smoke ? "; smoke size: figures not meaningful" : ""}`);
if (hasPython) console.log(`Python: ${python} (${(pythonVersion.stdout || pythonVersion.stderr).trim()})`);
else console.log(`Python comparison skipped: ${python} not found (set PYTHON to a CPython 3 interpreter)`);
const headers = (kind) => [`pw ${kind}`.padStart(12), ...(hasPython ? [`py ${kind}`.padStart(12), "ratio".padStart(8)] : [])];
row("program", headers("wall"), headers("eval"));
for (const [name, p] of Object.entries(programs)) {
  const pwFile = join(work, `${name}.pw`);
  const pyFile = join(work, `${name}.py`);
  writeFileSync(pwFile, p.pw);
  writeFileSync(pyFile, p.py);
  const pwArgs = useCli ? [cli, "run", pwFile, "--no-agent"] : [pwRunner, pwFile];
  const pwWall = wall(process.execPath, pwArgs, p.expect);
  const pwEval = evalTime(process.execPath, [pwTimer, pwFile]);
  if (!hasPython) {
    row(name, [f(pwWall)], [f(pwEval)]);
    continue;
  }
  const pyWall = wall(python, [pyFile], p.expect);
  const pyEval = evalTime(python, [pyTimer, pyFile]);
  row(name, [f(pwWall), f(pyWall), ratio(pwWall, pyWall)], [f(pwEval), f(pyEval), ratio(pwEval, pyEval)]);
}
if (useCli) {
  const hello = wall(process.execPath, [cli, "run", join(root, "examples/hello.pw"), "--no-agent"]);
  const bare = wall(process.execPath, ["-e", "0"]);
  console.log(`start-up: patchwork run examples/hello.pw ${f(hello)}   node -e 0 ${f(bare)}`);
}
