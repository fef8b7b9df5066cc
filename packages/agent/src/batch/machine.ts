/**
 * How busy the machine is, measured cheaply for the governor: the share of CPU time spent
 * busy since the previous reading (`/proc/stat`, Linux; elsewhere the 1-minute load average
 * per core), and the memory still available (`MemAvailable` of `/proc/meminfo`, else
 * `os.freemem()`). One reading costs two small file reads.
 */
import { readFileSync } from "node:fs";
import * as os from "node:os";

export interface MachineReading {
  /** Busy share of all cores' time since the previous reading, 0–1 (the load average per core where /proc is missing, capped at 1). */
  cpuBusy: number;
  /** Bytes of memory still available to new processes. */
  freeBytes: number;
  totalBytes: number;
  cores: number;
}

/** Reads the machine; each call measures the CPU since the previous call. */
export type MachineProbe = () => MachineReading;

/** The probe of this machine. */
export function machineProbe(): MachineProbe {
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  let last = cpuTimes();
  return () => {
    const now = cpuTimes();
    let cpuBusy: number;
    if (now && last && now.total > last.total) cpuBusy = (now.busy - last.busy) / (now.total - last.total);
    else cpuBusy = Math.min(1, os.loadavg()[0]! / cores);
    last = now;
    return { cpuBusy: Math.max(0, Math.min(1, cpuBusy)), freeBytes: availableMemory(), totalBytes: os.totalmem(), cores };
  };
}

/** All cores' busy and total jiffies from `/proc/stat`'s first line; null where there is no /proc. */
function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // user nice system idle iowait irq softirq steal…: idle and iowait are not busy.
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

function availableMemory(): number {
  try {
    const match = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // no /proc: os.freemem()
  }
  return os.freemem();
}
