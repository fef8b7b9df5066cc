/**
 * The cassette agent (`--replay`): answers each think from a recorded cassette with no agent
 * at all. It re-runs the recorded `do` calls through `runChild`, so the deterministic code in
 * the blocks really runs again (and prints, and runs its commands), then returns the recorded
 * answer; a repair turn replays the recorded second turn.
 *
 * Matching (docs/replay.md): the think's ordinal in its worker and its prompt. The entry at the
 * same ordinal with the same prompt is used; else any unused entry of that worker with the same
 * prompt (a reordered run still matches). A think with no match is an error positioned at the
 * think (PW3032 with a diff against the entry at its ordinal, or PW3033), or, with a `fallback`
 * agent (`--replay-missing=agent`), is answered by that agent.
 */
import { runtimeError } from "../errors.js";
import { AgentError, type Agent, type RunChild, type ThinkReply, type ThinkRequest } from "../ports.js";
import { lineDiff, type Cassette, type CassetteThink, type CassetteTurn } from "../cassette/format.js";

export interface CassetteAgentOptions {
  /** Answers the thinks the cassette has no recording for. */
  fallback?: Agent;
  /** Name of the cassette file, for messages. */
  fileName?: string;
}

export class CassetteAgent implements Agent {
  private readonly byWorker = new Map<string, CassetteThink[]>();
  private readonly used = new Set<CassetteThink>();
  private readonly ordinals = new Map<string, number>();
  /** Per worker: the index in its (sorted) entries of the first entry not below its last ordinal. */
  private readonly cursors = new Map<string, number>();
  /** Thinks answered from the cassette / by the fallback agent. */
  replayed = 0;
  missed = 0;

  constructor(
    cassette: Cassette,
    private readonly options: CassetteAgentOptions = {},
  ) {
    for (const t of cassette.thinks) {
      const worker = t.worker ?? "main";
      let list = this.byWorker.get(worker);
      if (!list) this.byWorker.set(worker, (list = []));
      list.push(t);
    }
    for (const list of this.byWorker.values()) list.sort((a, b) => a.think - b.think);
  }

  think(request: ThinkRequest, runChild: RunChild): ThinkReply {
    const worker = request.worker ?? "main";
    const ordinal = (this.ordinals.get(worker) ?? 0) + 1;
    this.ordinals.set(worker, ordinal);
    const entries = this.byWorker.get(worker) ?? [];
    // Ordinals come in order: a cursor finds the first entry at this one (a search per think made a replay quadratic).
    let at = this.cursors.get(worker) ?? 0;
    while (at < entries.length && entries[at]!.think < ordinal) at++;
    this.cursors.set(worker, at);
    const atOrdinal = entries[at]?.think === ordinal ? entries[at] : undefined;
    const match =
      atOrdinal && !this.used.has(atOrdinal) && atOrdinal.prompt === request.prompt
        ? atOrdinal
        : entries.find((t) => !this.used.has(t) && t.prompt === request.prompt);
    if (match) {
      this.used.add(match);
      this.replayed++;
      return this.play(match, 0, request, runChild);
    }
    if (this.options.fallback) {
      this.missed++;
      return this.options.fallback.think(request, runChild);
    }
    throw this.mismatch(request, ordinal, atOrdinal);
  }

  /**
   * Replays one turn: its `do` calls run again; one that fails now, and is not run again
   * successfully later in the turn, fails the think as it would live (PW4017, PW4018).
   */
  private play(entry: CassetteThink, index: number, request: ThinkRequest, runChild: RunChild): ThinkReply {
    const turn: CassetteTurn = entry.turns[index]!;
    const failures: { at: number; block: number; unknown: boolean; reason: string }[] = [];
    const successes: { at: number; block: number }[] = [];
    turn.do.forEach((d, at) => {
      const unknown = d.block >= request.childCount;
      if (unknown && d.error === undefined) {
        throw runtimeError("PW3034", request.span, request.fileName, {
          detail: `the cassette${this.named()} runs do block ${d.block} of ${this.where(entry)}, which has ${request.childCount === 0 ? "no do blocks" : `blocks 0 to ${request.childCount - 1}`}`,
        });
      }
      const result = runChild(d.block);
      if (result.ok) successes.push({ at, block: d.block });
      else failures.push({ at, block: d.block, unknown, reason: result.error });
    });
    const unhealed = failures.filter((f) => !successes.some((s) => s.at > f.at && (f.unknown || s.block === f.block)));
    if (unhealed.length > 0) {
      const reasons = [...new Set(unhealed.map((f) => f.reason))].join("; ");
      throw new AgentError(unhealed[0]!.unknown ? "PW4018" : "PW4017", reasons);
    }
    return {
      kind: "text",
      text: turn.answer,
      followUp: (message, nextRunChild) => {
        if (index + 1 >= entry.turns.length) {
          throw new Error(
            `the cassette${this.named()} has no repair turn for think ${entry.think}: its recorded answer no longer converts (${firstLine(message)})`,
          );
        }
        return this.play(entry, index + 1, request, nextRunChild);
      },
    };
  }

  private where(entry: CassetteThink): string {
    return `think ${entry.think}${entry.worker ? ` of worker ${entry.worker}` : ""}`;
  }

  private named(): string {
    return this.options.fileName ? ` ${this.options.fileName}` : "";
  }

  private mismatch(request: ThinkRequest, ordinal: number, recorded: CassetteThink | undefined): Error {
    const where = `think ${ordinal}${request.worker && request.worker !== "main" ? ` of worker ${request.worker}` : ""}`;
    if (recorded && recorded.prompt !== request.prompt) {
      const detail = `the prompt of ${where} does not match the cassette${this.named()} (- recorded, + now):\n${lineDiff(recorded.prompt, request.prompt)}`;
      return runtimeError("PW3032", request.span, request.fileName, { detail });
    }
    return runtimeError("PW3033", request.span, request.fileName, { detail: `the cassette${this.named()} has no recording for ${where}` });
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0]!;
}
