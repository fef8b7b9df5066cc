/**
 * Shell commands of the program, run for the evaluator thread on the main thread. The
 * evaluator blocks on its channel exactly as with `spawnSync`, but the command runs in its
 * own process group, so cancelling the run kills it and everything it started (a blocked
 * `spawnSync` in the worker could not be interrupted, and its command outlived the run).
 * Same behaviour as the interpreter's `createNodeHost` shell: `/bin/sh -c` started by
 * `shellArgv`, captured output.
 */
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { shellArgv, shellValues, signalStatus, type ShellValues } from "@patchwork/interpreter/core";
import type { ShellResult } from "@patchwork/interpreter";
import type { ShellAt } from "./protocol.js";

/** `node:child_process`, loaded at the first command (a resume's start-up need not load it). */
let childProcess: typeof import("node:child_process") | undefined;
const spawn = ((...args: Parameters<typeof import("node:child_process").spawn>) =>
  (childProcess ??= createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process")).spawn(
    ...args,
  )) as typeof import("node:child_process").spawn;

export interface ShellRunnerOptions {
  env: Record<string, string | undefined>;
  stdin: "ignore" | "inherit";
}

export class ShellRunner {
  private readonly running = new Map<ChildProcess, ShellAt | undefined>();

  constructor(private readonly options: ShellRunnerOptions) {}

  /** Where the latest command still running is written, if the evaluator said. */
  get runningAt(): ShellAt | undefined {
    let at: ShellAt | undefined;
    for (const where of this.running.values()) at = where ?? at;
    return at;
  }

  run(command: string, cwd: string, env: Record<string, string> | undefined, at?: ShellAt): Promise<ShellResult> {
    return new Promise<ShellResult>((resolve) => {
      let child: ChildProcess;
      let values: ShellValues;
      try {
        values = shellValues(command, env); // values too large for the environment go through a file
      } catch (error) {
        resolve({ status: 127, stdout: "", stderr: `cannot write the command's values to a temporary file: ${(error as Error).message}\n` });
        return;
      }
      const done = resolve;
      resolve = (result) => {
        values.cleanup();
        done(result);
      };
      try {
        // setpriv/timeout (when present): the command's group also dies if this process is killed.
        const [file, args] = shellArgv(values.command);
        child = spawn(file, args, {
          cwd,
          env: { ...this.options.env, ...values.env },
          stdio: [this.options.stdin, "pipe", "pipe"],
          detached: true,
        });
      } catch (error) {
        // Arguments Node refuses (the interpreter checks values first; this is the last guard).
        resolve({ status: 127, stdout: "", stderr: `${(error as Error).message}\n` });
        return;
      }
      this.running.set(child, at);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout!.on("data", (b: Buffer) => out.push(b));
      child.stderr!.on("data", (b: Buffer) => err.push(b));
      child.once("error", (error) => {
        this.running.delete(child);
        resolve({ status: 127, stdout: "", stderr: `${error.message}\n` });
      });
      child.once("close", (code, signal) => {
        this.running.delete(child);
        const status = code ?? (signal ? signalStatus(signal) : 1);
        resolve({ status, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
      });
    });
  }

  /** Whether a command is running (its evaluator thread is blocked waiting for it). */
  get busy(): boolean {
    return this.running.size > 0;
  }

  /** Kills every running command's process group. */
  killAll(): void {
    for (const child of this.running.keys()) {
      if (child.pid === undefined) continue;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    this.running.clear();
  }
}
