/**
 * A task's think journal in Redis (`pw:run:RUN:journal:KEY`): the cassette entries of its thinks,
 * each pushed as soon as the think ends; a retried task replays them (with the entries the run's
 * own cassette gave its job) and pushes only the new ones.
 */
import type { Redis } from "ioredis";
import { CassetteRecorder, type CassetteThink, type PwEvent } from "@patchwork/interpreter";
import { journalKey, journalsKey } from "./protocol.js";

export class TaskJournal {
  /** What the task replays: the journal's entries, then the job's, each think once. */
  readonly thinks: CassetteThink[] = [];
  private readonly known = new Set<string>();
  private readonly recorder: CassetteRecorder;

  constructor(
    redis: Redis,
    run: string,
    key: string,
    /** The entries the journal had when the task started (JSON texts). */
    readonly journaled: readonly CassetteThink[],
    replay: readonly CassetteThink[] = [],
  ) {
    for (const t of [...journaled, ...replay]) if (this.add(t)) this.thinks.push(t);
    const list = journalKey(run, key);
    this.recorder = new CassetteRecorder(undefined, (entry) => {
      if (this.add(entry)) void redis.multi().rpush(list, JSON.stringify(entry)).sadd(journalsKey(run), list).exec().catch(() => undefined);
    });
  }

  /** Feed every event of the task, in order. */
  handle(event: PwEvent): void {
    this.recorder.handle(event);
  }

  /** Whether a think (by its worker and ordinal) is new to this journal. */
  private add(t: CassetteThink): boolean {
    const id = `${t.worker ?? "main"}\0${t.think}`;
    if (this.known.has(id)) return false;
    this.known.add(id);
    return true;
  }
}
