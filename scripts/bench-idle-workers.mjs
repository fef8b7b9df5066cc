#!/usr/bin/env node
// Memory of waiting workers (npm run bench:idle-workers; issue 21 §6): `patchwork run` (the real
// binary, no agent) of a program whose N workers each say they are ready and then wait in a
// mailbox `receive`; while all N wait, this script reads the RSS of the whole patchwork process
// (/proc/PID/status), and the same for one worker. Prints the RSS at N, the RSS per waiting
// worker, and, for comparison, what N empty Node worker threads cost in a bare Node process.
// N = 200 (the figure), 10 at --smoke size.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, size, smoke } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "packages/cli/bin/patchwork.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-idle-"));
const n = size(200, 10);
const repeats = size(3, 1);

/** `filler` functions the workers never call (a big program: each task thread gets only what its worker can call). */
const program = (count, filler = 0) => `${Array.from({ length: filler }, (_, i) => `fun f${i}(a, b) {\n    var x = a + b * ${i}\n    if x > 10 { return [x, "s${i}", {k: x}] }\n    return null\n}\n`).join("")}
worker w() {
    self.session.mailbox.ready.send(1)
    return self.session.mailbox.go.receive(600000)
}
var t = []
for i in 1...${count} { t.push(w()) }
var p = self.delegate(t)
for i in 1...${count} { self.session.mailbox.ready.receive(600000) }
print("all ready")
$ sleep 4
for i in 1...${count} { self.session.mailbox.go.send(i) }
print(len(p.await))
`;

const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

/** Runs `node ARGS`; once it prints `all ready`, waits `settleMs` and reads its RSS (MB). */
function rssWhenReady(args, settleMs = 2500) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let rss = NaN;
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("all ready") && Number.isNaN(rss)) {
        rss = 0;
        setTimeout(() => (rss = rssOf(child.pid)), settleMs);
      }
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => (code === 0 && rss > 0 ? resolve(rss) : reject(new Error(`${args.join(" ")}: exit ${code}, rss ${rss}: ${err.slice(0, 1000)}`))));
  });
}

/** The RSS of `patchwork run` while `count` workers wait. */
function patchworkAt(count, filler = 0) {
  const file = join(dir, `idle-${count}-${filler}.pw`);
  writeFileSync(file, program(count, filler));
  return rssWhenReady([bin, "run", "--no-agent", "--max-workers", String(count), file]);
}

/** The RSS of a bare Node process with `count` empty worker threads blocked in Atomics.wait. */
function emptyAt(count) {
  const file = join(dir, "empty.mjs");
  writeFileSync(
    file,
    `import { Worker } from "node:worker_threads";
let ready = 0;
const code = 'require("node:worker_threads").parentPort.postMessage(1); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)';
for (let i = 0; i < ${count}; i++) new Worker(code, { eval: true }).once("message", () => { if (++ready === ${count}) { console.log("all ready"); setTimeout(() => process.exit(0), 4000); } });
`,
  );
  return rssWhenReady([file]);
}

console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}; median of ${repeats}`);
const one = [];
const many = [];
const bare = [];
const big = [];
const bigOne = [];
const FILLER = 3000;
for (let i = 0; i < repeats; i++) {
  one.push(await patchworkAt(1));
  many.push(await patchworkAt(n));
  bare.push(await emptyAt(n));
  bigOne.push(await patchworkAt(1, FILLER));
  big.push(await patchworkAt(n, FILLER));
}
const per = many.map((m, i) => (m - one[i]) / (n - 1));
console.log(`${n} workers waiting in receive: rss ${median(many).toFixed(0)} MB (whole process; one worker: ${median(one).toFixed(0)} MB)`);
console.log(`per waiting worker: ${median(per).toFixed(2)} MB [${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)}]`);
console.log(`${n} empty Node worker threads in a bare process: rss ${median(bare).toFixed(0)} MB`);
const bigPer = big.map((m, i) => (m - bigOne[i]) / (n - 1));
console.log(`a ${FILLER}-function program (${(program(1, FILLER).length / 1024).toFixed(0)} KB): ${n} workers waiting: rss ${median(big).toFixed(0)} MB, per waiting worker ${median(bigPer).toFixed(2)} MB`);
if (smoke) console.log("(smoke size: the figures mean nothing)");
