// A synthetic trace of a long run, as `patchwork run --trace` writes it (docs/trace.md), for the
// tests and the benchmark of `patchwork trace` on big traces: a loop of thinks (each with a
// `do` call running a command and a nested think every tenth time), a few failures, then
// `run-end`. Written in 1 MB pieces; the file has about `bytes` bytes.
import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Writes the trace to `path`. Options: `bytes` (the size to reach), `promptChars` (each
 * prompt's length), `cut` (leave the last line cut off, as a kill mid-write does).
 * Returns { thinks, lines, bytes }.
 */
export function writeBigTrace(path, { bytes, promptChars = 200, cut = false }) {
  const fd = openSync(path, "w");
  let pending = [];
  let pendingLength = 0;
  let written = 0;
  let lines = 0;
  const put = (record) => {
    const line = JSON.stringify(record) + "\n";
    pending.push(line);
    pendingLength += line.length;
    lines++;
    if (pendingLength >= 1 << 20) flush();
  };
  const flush = () => {
    written += writeSync(fd, pending.join(""));
    pending = [];
    pendingLength = 0;
  };
  const at = (line) => ({ file: "loop.pw", line, column: 5 });
  const filler = "x".repeat(promptChars);
  put({ t: 0, type: "run-start", version: 1, program: "loop.pw", cwd: "/tmp", agent: "scripted", mode: "agent", patchwork: "0.1.0", node: process.version, pid: 1, startedAt: "2026-11-27T00:00:00.000Z" });
  put({ t: 1, type: "agent-started", pid: 2, agentName: "scripted", protocolVersion: 1, transport: "stdio" });
  let t = 2;
  let id = 0;
  let doId = 0;
  while (written + pendingLength < bytes) {
    const think = ++id;
    put({ t, type: "think-start", id: think, kind: "think", parent: null, at: at(3), prompt: `item ${think}: ${filler}`, typeText: null });
    const nested = think % 10 === 0;
    if (nested) {
      const d = ++doId;
      put({ t: t + 1, type: "do-start", id: d, think, index: 0 });
      put({ t: t + 2, type: "shell", command: `echo ${think}`, status: 0, durationMs: 1, at: at(5), parent: { think, do: d } });
      const inner = ++id;
      put({ t: t + 3, type: "think-start", id: inner, kind: "think", parent: { think, do: d }, at: at(6), prompt: `inner ${inner}`, typeText: null });
      put({ t: t + 4, type: "think-end", id: inner, ok: true, durationMs: 1, reply: "fine", repairs: 0 });
      put({ t: t + 5, type: "do-end", id: d, think, index: 0, ok: true, durationMs: 4, output: `${think}\n` });
    }
    const ok = think % 1000 !== 7;
    put({ t: t + 6, type: "think-end", id: think, ok, durationMs: 6, ...(ok ? { reply: `answer ${think}` } : { error: "PW4002: the agent failed" }), repairs: 0 });
    t += 7;
  }
  put({ t, type: "run-end", ok: true, exitCode: 0, durationMs: t, cancelled: false });
  if (cut) {
    const last = pending.pop();
    pending.push(last.slice(0, Math.floor(last.length / 2)));
  }
  flush();
  closeSync(fd);
  return { thinks: id, lines, bytes: written };
}
