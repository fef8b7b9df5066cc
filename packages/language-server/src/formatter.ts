/**
 * Formatting for the server: small documents in place, large ones on a formatter thread
 * (format-worker.ts) so that other requests keep being answered meanwhile. The thread is
 * started at the first large document and kept (unreferenced: it never holds the process).
 */
import { Worker } from "node:worker_threads";
import { format } from "@patchwork/parser";
import type { FormatDone, FormatJob } from "./format-worker.js";

/** Below this many characters formatting takes a few milliseconds: not worth a thread hop. */
const IN_PLACE_MAX = 20_000;

export class Formatter {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiting = new Map<number, (text: string | null) => void>();

  /** The formatted text, or null when the text does not parse. */
  format(text: string): Promise<string | null> {
    if (text.length <= IN_PLACE_MAX) {
      const r = format(text);
      return Promise.resolve(r.ok ? r.text : null);
    }
    const worker = this.thread();
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ id, text } satisfies FormatJob);
    });
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = null;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./format-worker.js", import.meta.url));
    worker.unref();
    worker.on("message", (done: FormatDone) => {
      this.waiting.get(done.id)?.(done.text);
      this.waiting.delete(done.id);
    });
    const fail = (error: Error) => {
      // Whatever was waiting gets "cannot format"; the next request starts a new thread.
      if (this.worker === worker) this.worker = null;
      for (const [id, resolve] of this.waiting) {
        resolve(null);
        this.waiting.delete(id);
      }
      void error;
    };
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("the formatter thread exited")));
    this.worker = worker;
    return worker;
  }
}
