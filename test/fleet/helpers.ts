/**
 * The fleet suite's real parts: a redis-server of its own (127.0.0.1, a free port, a temporary
 * data directory, no snapshot), `patchwork worker` processes and `patchwork run --queue` runs,
 * and the scripted ACP agent with a log of the prompts it was asked.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const repoRoot = join(import.meta.dirname, "..", "..");
export const patchworkBin = join(repoRoot, "packages", "cli", "bin", "patchwork.js");
const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  url: string;
  port: number;
  /** Stops it (SIGTERM) and starts it again on the same port and folder (its append-only file kept). */
  restart(pauseMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts redis-server on a free port of 127.0.0.1; `appendOnly`: with its append-only file. */
export async function startRedis(options: { appendOnly?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "pw-redis-"));
  let child = await redisServer(port, dir, options);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    restart: async (pauseMs) => {
      await stopChild(child);
      await new Promise((r) => setTimeout(r, pauseMs));
      child = await redisServer(port, dir, options);
    },
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

async function redisServer(port: number, dir: string, options: { appendOnly?: boolean }): Promise<ChildProcess> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", options.appendOnly ? "yes" : "no"];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${text}`)), 15_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${text}`)));
    child.once("error", reject);
  });
  return child;
}

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), "pw-fleet-"));
}

/** A scripted agent: each prompt that contains `match` gets `reply` after `sleepMs`; prompts logged to `logFile`. */
export function agentCommand(dir: string, name: string, entries: { match: string; reply: string; sleepMs?: number }[], extra: Record<string, unknown> = {}): { command: string; log: string } {
  const log = join(dir, `${name}.log`);
  const script = {
    logFile: log,
    logPrompts: true,
    prompts: entries.map((e) => ({ match: e.match, steps: [...(e.sleepMs ? [{ sleep: e.sleepMs }] : []), { reply: e.reply }] })),
    ...extra,
  };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(script));
  return { command: `"${process.execPath}" "${testAgent}" "${file}"`, log };
}

/** The prompts an agent was asked, from its log. */
export function promptsAsked(log: string): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("prompt text: "))
    .map((l) => JSON.parse(l.slice("prompt text: ".length)) as string);
}

export interface WorkerProcess {
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, and the exit status. */
  stop(): Promise<number | null>;
}

/** Starts `patchwork worker` and waits until it takes tasks; `baseEnv`: the environment in place of this process's (the real-agent suite's scrubbed one). */
export async function startWorker(url: string, options: { agent?: string; concurrency?: number; cwd?: string; env?: Record<string, string>; baseEnv?: Record<string, string> } = {}): Promise<WorkerProcess> {
  const args = [patchworkBin, "worker", "--queue", url, ...(options.agent ? ["--agent", options.agent] : ["--no-agent"]), "--concurrency", String(options.concurrency ?? 4)];
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? repoRoot,
    env: { ...(options.baseEnv ?? process.env), PATCHWORK_FLEET_LOCK_MS: "2000", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  child.stdout!.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker did not start: ${err}`)), 30_000);
    const check = () => {
      if (err.includes("takes tasks")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on("data", check);
    child.once("exit", (code) => reject(new Error(`the worker exited (${code}): ${err}`)));
  });
  return {
    child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** SIGKILLs a worker and its process group (its agent too: a dead machine). */
export function killWorker(w: WorkerProcess): Promise<void> {
  const exited = new Promise<void>((r) => w.child.once("exit", () => r()));
  try {
    process.kill(-w.child.pid!, "SIGKILL");
  } catch {
    w.child.kill("SIGKILL");
  }
  return exited;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `patchwork run ARGS…` to its end; `baseEnv` as for `startWorker`. */
export function patchwork(args: string[], options: { cwd?: string; env?: Record<string, string>; baseEnv?: Record<string, string>; onStart?: (child: ChildProcess) => void } = {}): Promise<RunResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [patchworkBin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...(options.baseEnv ?? process.env), PATCHWORK_AGENT: "", PATCHWORK_QUEUE: "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  options.onStart?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr, ms: Date.now() - started })));
}
