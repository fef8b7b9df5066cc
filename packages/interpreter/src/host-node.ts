/**
 * The Node.js Host: files, `/bin/sh`, output. Output is written synchronously
 * (`fs.writeSync` on fd 1 / 2 by default), so it stays ordered with everything else the
 * process writes, also when the evaluator runs on a worker thread.
 */
import { createRequire } from "node:module";
import { existsSync, readFileSync, readSync, writeSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Host, PwEvent, ShellOptions, ShellResult } from "./ports.js";
import { shellArgv, signalStatus } from "./shell-process.js";
import { shellValues } from "./shell-values.js";
import { writeFileAtomic, type WriteGuard } from "./write-file.js";

/**
 * `node:child_process`, loaded at the first shell command: with `net` and the streams it pulls
 * in, it is ≈ 20 ms of a `patchwork run` that runs none (docs/benchmarks.md, "Start-up").
 */
let childProcess: typeof import("node:child_process") | undefined;
const spawnSync = ((...args: Parameters<typeof import("node:child_process").spawnSync>) => {
  childProcess ??= createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  return childProcess.spawnSync(...args);
}) as typeof import("node:child_process").spawnSync;

export interface NodeHostOptions {
  /** Working directory for relative paths and shell commands. Default: process.cwd(). */
  cwd?: string;
  /** Where program output goes. Default: synchronous writes to fd 1. */
  stdout?: (text: string) => void;
  /** Where `log(...)` and shell stderr go. Default: synchronous writes to fd 2. */
  stderr?: (text: string) => void;
  /** Environment for `env()` and shell commands. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Event sink. */
  onEvent?: (event: PwEvent) => void;
  /** Line input for `--ask-user`. Default: a synchronous read from fd 0. */
  readLine?: (prompt: string) => string | null;
  /**
   * Standard input of shell commands. Default "ignore" (commands read EOF): the process's
   * own stdin may be a protocol stream (ACP). The CLI may pass "inherit".
   */
  shellStdin?: "ignore" | "inherit";
  /** Brackets each `write()`'s temporary file (write-file.ts): an evaluator thread's stop waits for it. */
  writeGuard?: WriteGuard;
}

/** Writes all of `text` to a file descriptor, retrying on EAGAIN (non-blocking pipes). */
export function writeAllSync(fd: number, text: string): void {
  let buf = Buffer.from(text, "utf8");
  while (buf.length > 0) {
    try {
      const n = writeSync(fd, buf);
      buf = buf.subarray(n);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // The reader went away (`| head`): drop the rest of the output.
      if (code === "EPIPE") return;
      if (code !== "EAGAIN") throw e;
    }
  }
}

function readLineFromStdin(prompt: string): string | null {
  writeAllSync(2, prompt.endsWith("\n") ? prompt : prompt + "\n");
  const bytes: number[] = [];
  const one = Buffer.alloc(1);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, one, 0, 1, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") continue;
      throw e;
    }
    if (n === 0) return bytes.length ? Buffer.from(bytes).toString("utf8") : null;
    if (one[0] === 10) return Buffer.from(bytes).toString("utf8").replace(/\r$/, "");
    bytes.push(one[0]!);
  }
}

export function createNodeHost(options: NodeHostOptions = {}): Host {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const host: Host = {
    write: options.stdout ?? ((text) => writeAllSync(1, text)),
    log: options.stderr ?? ((text) => writeAllSync(2, text)),
    readFile: (p) => readFileSync(abs(p), "utf8"),
    writeFile: (p, text) => writeFileAtomic(abs(p), text, options.writeGuard),
    exists: (p) => existsSync(abs(p)),
    env: (name) => env[name],
    shell: (command: string, opts: ShellOptions): ShellResult => {
      let values;
      try {
        values = shellValues(command, opts.env);
      } catch (e) {
        return { status: 127, stdout: "", stderr: `cannot write the command's values to a temporary file: ${(e as Error).message}\n` };
      }
      const [file, args] = shellArgv(values.command, { timeoutMs: opts.timeoutMs });
      let r;
      try {
        r = spawnSync(file, args, {
          cwd: opts.cwd ?? cwd,
          env: { ...env, ...values.env },
          encoding: "utf8",
          maxBuffer: 1 << 30,
          stdio: [options.shellStdin ?? "ignore", "pipe", "pipe"],
          // A session of its own (see shell-process.ts). spawnSync honours `detached` like
          // spawn (setsid) though its typings omit it.
          ...({ detached: true } as object),
        });
      } catch (e) {
        // Arguments Node refuses (the interpreter checks values first; this is the last guard).
        return { status: 127, stdout: "", stderr: `${(e as Error).message}\n` };
      } finally {
        values.cleanup();
      }
      if (r.error) return { status: 127, stdout: r.stdout ?? "", stderr: `${r.error.message}\n` };
      return { status: r.status ?? signalStatus(r.signal), stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
    },
    readLine: options.readLine ?? readLineFromStdin,
  };
  if (options.onEvent) host.event = options.onEvent;
  return host;
}

