/**
 * The heap an agent keeps, apart from its garbage: a loop program runs heap-probe.mjs as a
 * shell command after think 5 and after the last think; each probe forces two full GCs in the
 * agent's node process (through its inspector) and prints its heap, RSS and open sockets.
 * For agents that cannot close a session, whose RSS mostly shows garbage a large heap limit
 * lets pile up.
 */
import { fileURLToPath } from "node:url";
import { figure } from "./harness.js";

const HEAP_PROBE = fileURLToPath(new URL("./heap-probe.mjs", import.meta.url));

export interface HeapProbe {
  heapMB: number;
  rssMB: number;
  sockets: number;
  /** When the probe started (epoch ms). */
  at: number;
}

/** Adds the probes to a loop program (`for … {\n…\n}\n`) whose think's index is `i`. */
export function withHeapProbes(loop: string, processPattern: string): string {
  const probe = (label: string) => `$ node --experimental-websocket ${JSON.stringify(HEAP_PROBE)} ${label} ${JSON.stringify(processPattern)}`;
  if (!/\n}\n$/.test(loop)) throw new Error("withHeapProbes: not a loop program ending in }");
  return loop.replace(/\n}\n$/, `\n    if i == 5 {\n        ${probe("early")}\n    }\n}\n${probe("late")}\n`);
}

/** A probe's line in the program's output. */
export function heapProbe(stdout: string, label: string): HeapProbe {
  const m = new RegExp(`heap-probe ${label} pid=\\d+ heapMB=([\\d.]+) rssMB=([\\d.]+) sockets=(\\d+) at=(\\d+)\\n`).exec(stdout);
  if (!m) throw new Error(`no heap-probe ${label} line in:\n${stdout}`);
  return { heapMB: Number(m[1]), rssMB: Number(m[2]), sockets: Number(m[3]), at: Number(m[4]) };
}

/** The output without the probes' lines. */
export const withoutProbes = (stdout: string) => stdout.replace(/^heap-probe .*\n/gm, "");

/** Reports the early and late probes of a loop of `thinks`; returns the heap growth per think (MB). */
export function heapFigures(agent: string, stdout: string, thinks: number): { perThink: number; early: HeapProbe; late: HeapProbe } {
  const [early, late] = [heapProbe(stdout, "early"), heapProbe(stdout, "late")];
  const perThink = (late.heapMB - early.heapMB) / (thinks - 5);
  figure(agent, `agent heap after GC, think 5 → ${thinks} (MB)`, `${early.heapMB} → ${late.heapMB} (${perThink.toFixed(2)} a think)`);
  figure(agent, `agent RSS after GC, think 5 → ${thinks} (MB)`, `${early.rssMB} → ${late.rssMB}`);
  figure(agent, `agent sockets, think 5 → ${thinks}`, `${early.sockets} → ${late.sockets}`);
  return { perThink, early, late };
}
