/**
 * The standard output and error of evaluator threads. A thread writes its program's output
 * itself, synchronously to file descriptors 1 and 2 (the Node host: `fs.writeSync`), never
 * through its `process.stdout`. So evaluator threads are started with `stdout: true, stderr:
 * true`: by default `new Worker` pipes the thread's streams into this process's
 * `process.stdout` and `process.stderr`, which creates them, and creating a pipe's stream puts
 * the pipe into non-blocking mode. Then a thread's `writeSync` to a full pipe fails with EAGAIN
 * and the host retries at once, an error made and thrown per try: a resume's replayed output
 * spent more CPU in that loop than in running the program (docs/benchmarks.md, "The cassette
 * journal and resuming"). Whatever the thread writes to its own streams (Node's warnings) still
 * reaches ours, written as the CLI writes.
 */
import { writeSync } from "node:fs";
import type { Worker } from "node:worker_threads";

/** `new Worker` options: the thread's streams are ours to forward (`forwardStdio`). */
export const THREAD_STDIO = { stdout: true, stderr: true } as const;

/**
 * Copies what the thread writes to its `process.stdout` / `process.stderr` to file descriptors
 * 1 / 2. (Reading them keeps this process alive while the thread lives: call it once the thread
 * is in use.)
 */
export function forwardStdio(worker: Worker): void {
  worker.stdout.on("data", (chunk: Buffer | string) => writeFully(1, chunk));
  worker.stderr.on("data", (chunk: Buffer | string) => writeFully(2, chunk));
}

function writeFully(fd: number, chunk: Buffer | string): void {
  let buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(writeSync(fd, buffer));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") continue; // (another part of the process made the pipe non-blocking)
      return; // EPIPE (the reader went away) and the like: dropped, as the host drops output
    }
  }
}
