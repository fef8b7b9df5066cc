/**
 * The lock between an evaluator thread's `write()` and the pool that stops the thread.
 *
 * `worker.terminate()` stops a thread's JavaScript wherever it is, `finally` blocks included:
 * stopped between creating a `write()`'s temporary file and renaming it, the thread would
 * leave `.NAME.pw-tmp-…` behind (issue 21 §4). So the thread takes this lock for the life of
 * a temporary file (write-file.ts's `WriteGuard`), and the pool takes it before it stops the
 * thread (`stop`): a write under way finishes first, and a write not begun never begins.
 *
 * One Int32 of state on a SharedArrayBuffer shared by the two threads (IDLE, WRITING,
 * STOPPING), then the temporary file's path (its UTF-8 length, then its bytes): if a write
 * outlasts the pool's wait, the pool removes that file once the thread has stopped.
 */
import { unlink } from "node:fs";
import type { Worker } from "node:worker_threads";
import type { WriteGuard } from "@patchwork/interpreter";

const IDLE = 0;
const WRITING = 1;
const STOPPING = 2;
const HEADER = 8;
const PATH_BYTES = 4096;

/** A fresh lock's shared memory (the pool makes it, the thread gets it in its init). */
export function newWriteLock(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER + PATH_BYTES);
}

/** The evaluator thread's side: the `WriteGuard` its Node host brackets each write with. */
export function writeGuardOf(buffer: SharedArrayBuffer): WriteGuard {
  const state = new Int32Array(buffer, 0, 2);
  const bytes = new Uint8Array(buffer, HEADER);
  return {
    enter(tmp: string): void {
      for (;;) {
        const was = Atomics.compareExchange(state, 0, IDLE, WRITING);
        if (was === IDLE) break;
        // The pool is stopping this thread: wait here for the end (terminate wakes the wait).
        if (was === STOPPING) Atomics.wait(state, 0, STOPPING);
      }
      const { written } = new TextEncoder().encodeInto(tmp, bytes);
      Atomics.store(state, 1, written === Buffer.byteLength(tmp) ? written : 0);
    },
    leave(): void {
      Atomics.store(state, 1, 0);
      Atomics.store(state, 0, IDLE);
      Atomics.notify(state, 0);
    },
  };
}

/**
 * The pool's side, before it terminates the thread: takes the lock, waiting up to `waitMs`
 * for a write under way to finish. False: the wait ran out with a write still under way (then
 * `pendingTemp`, once the thread has stopped, names its temporary file).
 */
export function lockForStop(buffer: SharedArrayBuffer, waitMs: number): boolean {
  const state = new Int32Array(buffer, 0, 2);
  const deadline = performance.now() + waitMs;
  for (;;) {
    const was = Atomics.compareExchange(state, 0, IDLE, STOPPING);
    if (was === IDLE || was === STOPPING) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(state, 0, WRITING, left);
  }
}

/** The temporary file of the write a stopped thread was in, if any. */
export function pendingTemp(buffer: SharedArrayBuffer): string | null {
  const state = new Int32Array(buffer, 0, 2);
  if (Atomics.load(state, 0) !== WRITING) return null;
  const length = Atomics.load(state, 1);
  return length > 0 ? new TextDecoder().decode(new Uint8Array(buffer, HEADER, length).slice()) : null;
}

/** How long a stop waits for a thread's `write()` under way (a write is one file: normally milliseconds). */
export const WRITE_WAIT_MS = 5000;

/**
 * Terminates an evaluator thread, never inside a `write()` (which would leave its temporary
 * file): one under way gets `waitMs` to finish; if it outlasts that, its temporary file is
 * removed once the thread has stopped.
 */
export function terminateOutsideWrites(worker: Worker, lock: SharedArrayBuffer, waitMs = WRITE_WAIT_MS): Promise<number> {
  if (lockForStop(lock, waitMs)) return worker.terminate();
  return worker.terminate().then((code) => {
    const tmp = pendingTemp(lock);
    if (tmp) unlink(tmp, () => {});
    return code;
  });
}
