/**
 * Builds a cassette from the evaluator's event stream (design.md §9): `think-start` gives the
 * prompt, `do-end` each `do` call with what it gave back, `think-repair` the boundary of a
 * repair turn, `think-end` the final reply. It sees every think the same way whoever answered
 * it (an ACP agent, a scripted agent, a replayed cassette), so `--replay-missing=agent` can
 * re-record a whole run. A think that failed (no reply) is not recorded.
 */
import type { PwEvent } from "../ports.js";
import type { Cassette, CassetteThink } from "./format.js";
import { CASSETTE_VERSION } from "./format.js";

interface Open {
  entry: CassetteThink;
  failed: boolean;
}

export class CassetteRecorder {
  private readonly entries: Open[] = [];
  private readonly open = new Map<number, Open>();
  private readonly ordinals = new Map<string, number>();

  /** `onEntry`: called with each think's entry when the think has ended (a journal writes it at once). */
  constructor(
    private readonly program?: string,
    private readonly onEntry?: (entry: CassetteThink) => void,
  ) {}

  /** Feed every event of the run, in order. */
  handle(event: PwEvent): void {
    switch (event.type) {
      case "think-start": {
        const worker = event.worker ?? "main";
        const think = (this.ordinals.get(worker) ?? 0) + 1;
        this.ordinals.set(worker, think);
        const { line, column } = event.span.start;
        const entry: CassetteThink = {
          think,
          ...(event.worker !== undefined && event.worker !== "main" ? { worker: event.worker } : {}),
          at: `${event.fileName}:${line}:${column}`,
          kind: event.kind,
          prompt: event.prompt,
          turns: [{ do: [], answer: "" }],
        };
        const open = { entry, failed: false };
        this.entries.push(open);
        this.open.set(event.id, open);
        return;
      }
      case "do-end": {
        const open = this.open.get(event.thinkId);
        const turn = open?.entry.turns[open.entry.turns.length - 1];
        if (!turn) return;
        turn.do.push(event.ok ? { block: event.index, result: event.text ?? "" } : { block: event.index, error: event.error ?? "failed" });
        return;
      }
      case "think-repair": {
        const open = this.open.get(event.id);
        if (!open) return;
        open.entry.turns[open.entry.turns.length - 1]!.answer = event.reply;
        open.entry.turns.push({ repair: event.message, do: [], answer: "" });
        return;
      }
      case "think-end": {
        const open = this.open.get(event.id);
        if (!open) return;
        this.open.delete(event.id);
        if (!event.ok || event.reply === undefined) open.failed = true;
        else {
          open.entry.turns[open.entry.turns.length - 1]!.answer = event.reply;
          this.onEntry?.(open.entry);
        }
        return;
      }
    }
  }

  /**
   * The cassette so far (thinks still open or failed are left out), in a stable order: the
   * main program's thinks, then each worker's (by name), each in start order.
   */
  cassette(): Cassette {
    const thinks = sortThinks(this.entries.filter((o) => !o.failed && !this.isOpen(o)).map((o) => o.entry));
    return { version: CASSETTE_VERSION, ...(this.program !== undefined ? { program: this.program } : {}), thinks };
  }

  /** Thinks that ended without an answer (an agent's failure, a cancelled think): never recorded, so a resume asks them again. */
  get failed(): number {
    let n = 0;
    for (const o of this.entries) if (o.failed) n++;
    return n;
  }

  private isOpen(o: Open): boolean {
    for (const v of this.open.values()) if (v === o) return true;
    return false;
  }
}

/** Made at the first comparison of two workers' names: an ICU collator takes ≈ 6 ms to make, which a resume's start-up paid. */
let byName: Intl.Collator | undefined;

/** The main program's thinks first, then each worker's by name (`part#2` before `part#10`), each by ordinal. */
export function sortThinks(thinks: CassetteThink[]): CassetteThink[] {
  return [...thinks].sort((a, b) => {
    if (a.worker !== b.worker) {
      if (a.worker === undefined) return -1;
      if (b.worker === undefined) return 1;
      return (byName ??= new Intl.Collator("en", { numeric: true })).compare(a.worker, b.worker) || (a.worker < b.worker ? -1 : 1);
    }
    return a.think - b.think;
  });
}
