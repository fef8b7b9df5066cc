/**
 * The evaluator thread's output and events (evaluator-worker.ts): its host writes the program's
 * output itself or sends it to the main thread, in whole lines for a task, and every event goes
 * to the main thread in program order.
 */
import type { Host, PwEvent } from "@patchwork/interpreter";
import type { WorkerInit } from "./protocol.js";
import type { ThreadAgent } from "./thread-agent.js";
import { flushHeldStart, holdStart, outbox, queue } from "./thread-port.js";

/** Output in whole lines: what a line's end has not come for yet waits (flushed at the end). */
export class LineBuffer {
  private pending = "";
  constructor(private readonly sink: (text: string) => void) {}
  write(text: string): void {
    const cut = text.lastIndexOf("\n");
    if (cut < 0) {
      this.pending += text;
      return;
    }
    const whole = this.pending + text.slice(0, cut + 1);
    this.pending = text.slice(cut + 1);
    this.sink(whole);
  }
  flush(): void {
    if (this.pending) this.sink(this.pending);
    this.pending = "";
  }
}

export function wrapHost(base: Host, init: WorkerInit, agent: ThreadAgent, output: string[], lines: LineBuffer | null): Host {
  return {
    write(text) {
      output.push(text);
      if (lines) lines.write(text);
      else {
        queue({ type: "output", text });
        if (init.writeOutput) outbox.write(text);
      }
    },
    log(text) {
      if (init.writeOutput) {
        outbox.flush(); // (stdout before it, in order)
        base.log(text);
      } else queue({ type: "event", event: { type: "log", text } });
    },
    readFile: (path) => base.readFile(path),
    writeFile: (path, text) => base.writeFile(path, text),
    exists: (path) => base.exists(path),
    env: (name) => base.env(name),
    shell: (command, options) => agent.shell(command, options),
    readLine: base.readLine
      ? (prompt) => {
          flushHeldStart();
          outbox.flush();
          return base.readLine!(prompt);
        }
      : undefined,
    event(raw: PwEvent) {
      // Without writeOutput, `log` above has sent the text as a `log` event already (`log(…)`
      // calls it, then emits its own event): one event a line, not two.
      if (raw.type === "log" && !init.writeOutput) return;
      // A task thread's think events name its worker (traces, cassettes, --verbose).
      const event =
        init.worker !== undefined && (raw.type === "think-start" || raw.type === "think-repair" || raw.type === "think-end")
          ? { ...raw, worker: init.worker }
          : raw;
      base.event?.(event);
      send(event);
    },
  };
}

function send(event: PwEvent): void {
  if (event.type === "think-start") holdStart(event);
  else {
    flushHeldStart();
    queue({ type: "event", event });
  }
}
