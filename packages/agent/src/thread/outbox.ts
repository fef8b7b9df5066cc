/**
 * What an evaluator thread sends out: its messages to the main thread and its program's
 * standard output. Sent at once, except while the thread replays a cassette (`--resume`,
 * `--replay … --replay-missing=agent`): then a replayed think costs about what a think costs
 * without an agent (docs/benchmarks.md, "The cassette journal and resuming"). A message and a
 * write per printed line and per event (three or four per think) made a replayed think six
 * times as dear as the program's own work, so while replaying the thread keeps its output and
 * its events (the messages that need no answer) and sends them in batches: one write of the
 * output so far, then one message carrying the events and output messages, in their order.
 *
 * A batch goes out before anything else leaves the thread, so no order changes: before a
 * message that is not an event (a live think, a shell command, `join`, `receive`, the end),
 * before a write to stderr (`log`), before the thread reads the terminal, and at the latest
 * `BATCH_MS` after its first item (checked as items come: a `for` loop makes one, a
 * `loop-item` event, at most every 50 ms), so that a long replay still
 * shows its progress. Replaying stops for good at the run's first live think: from then on
 * every message and line goes at once (a live answer is journaled as it arrives: the main
 * thread writes its entry when its `think-end` comes). A run stopped while the thread holds
 * items (Ctrl-C, SIGKILL) loses them from its output, at most `BATCH_MS` of replayed lines;
 * its cassette loses nothing (a replayed think's entry is in it already).
 */
import type { FromThread } from "./protocol.js";

/** Longest time a batched item waits (while the thread keeps running). */
export const BATCH_MS = 20;
/** Output (characters) or messages held before a batch goes out regardless of time. */
const MAX_TEXT = 64 * 1024;
const MAX_MESSAGES = 1024;

/** A batch of messages (each may name its task: `FromThread`), handled in order as if sent one by one. */
export interface BatchMessage {
  type: "batch";
  messages: FromThread[];
}

export class Outbox {
  private messages: FromThread[] = [];
  private text = "";
  private since = -1;
  /** Holding items (the thread replays); false: everything goes at once. */
  private holding = false;

  constructor(
    private readonly post: (message: FromThread | BatchMessage) => void,
    /** Where program output goes (the thread's Node host, once made). */
    public writeStdout: (text: string) => void,
  ) {}

  /** From now on items are held (a replay starts), until `stopHolding`. */
  hold(): void {
    this.holding = true;
  }

  /** Sends what is held, and every item from now on at once (a live think has come). */
  stopHolding(): void {
    this.flush();
    this.holding = false;
  }

  /** A message that needs no answer and may wait (an event, a copy of output). */
  message(message: FromThread): void {
    if (!this.holding) return this.post(message);
    this.messages.push(message);
    this.due();
  }

  /** Program output for the thread's stdout. */
  write(text: string): void {
    if (!this.holding) return this.writeStdout(text);
    this.text += text;
    this.due();
  }

  /** Sends what is held: the output first, then one message with the held messages. */
  flush(): void {
    this.since = -1;
    if (this.text !== "") {
      const text = this.text;
      this.text = "";
      this.writeStdout(text);
    }
    if (this.messages.length === 0) return;
    const messages = this.messages;
    this.messages = [];
    this.post(messages.length === 1 ? messages[0]! : { type: "batch", messages });
  }

  /** Flushes if the first held item has waited `BATCH_MS`. */
  tick(): void {
    if (this.since >= 0 && Date.now() - this.since >= BATCH_MS) this.flush();
  }

  private due(): void {
    if (this.since < 0) this.since = Date.now();
    else if (this.text.length >= MAX_TEXT || this.messages.length >= MAX_MESSAGES) this.flush();
    else this.tick();
  }
}
