/**
 * Sessions made ahead of need (docs/agent.md, "Sessions made ahead"). Creating a session is
 * the one wait of a think that is not the model's: for Claude Code it starts a process and the
 * Agent SDK (≈ 0.4–0.6 s), for Gemini CLI ≈ 0.3 s. The program's text and the run so far say
 * when one will be needed, so one is created before the think that takes it starts:
 *
 * - **start**: right after `initialize`, when the program contains thinks (`SessionHint`): one
 *   for each, up to the per-thread bound (the nested categorization's two are made side by side);
 * - **nested**: when a think starts, one for each think written inside its `do` blocks;
 * - **next**: when a think written inside a loop starts, or a think written in one place runs
 *   a second time (a function called in a loop), one for the next.
 *
 * Spares are bounded: at most `total` unused at once and `perWorker` for any one evaluator
 * thread, so that a run never holds more than a few sessions it may not use. A think takes a
 * spare made for its own thread, else one made for any thread; the other threads' stay theirs.
 * Unused spares are closed when the runtime closes. A spare that failed is replaced by a new
 * session for the think that wanted it (which then reports the cause, if it fails again).
 */
import type { ThinkRequest } from "@patchwork/interpreter";
import type { OpenedSession } from "./think-handler.js";

/** How many spare sessions may exist at once (0: none is ever made ahead). */
export interface AheadLimits {
  total: number;
  perWorker: number;
}

/** Default bounds; an agent profile may lower them (`AgentProfile.sessionsAhead`). */
export const DEFAULT_AHEAD: AheadLimits = { total: 4, perWorker: 2 };

interface Spare {
  cwd: string;
  /** The evaluator thread it was made for; null: the next think of any thread. */
  worker: string | null;
  session: Promise<OpenedSession>;
}

export interface AheadHooks {
  /** `session/new` with its set-up. */
  create(cwd: string): Promise<OpenedSession>;
  /** Closes a session no think will take (resolves once the agent has answered, or could not). */
  discard(session: OpenedSession): Promise<void>;
  /** How many more sessions may be made ahead now (the process's restart limit, its state). */
  room(): number;
  /** A spare was made (for the trace: `session-ahead` events). */
  made?(reason: AheadReason, worker: string | null): void;
}

export type AheadReason = "start" | "nested" | "next";

export class SessionsAhead {
  private spares: Spare[] = [];
  /** Think sites (file and offset) that have run, per thread: the second run of one foretells a third. */
  private readonly sites = new Set<string>();
  private closed = false;

  constructor(
    private readonly limits: AheadLimits,
    private readonly hooks: AheadHooks,
  ) {}

  /** Spares not yet taken. */
  get count(): number {
    return this.spares.length;
  }

  /**
   * A session for a think of `worker` in `cwd`: a spare made for this thread, else one made
   * for any thread, else none (null). A spare for another directory is closed when taken by nobody.
   */
  take(cwd: string, worker: string): Promise<OpenedSession> | null {
    const index = [worker, null]
      .map((w) => this.spares.findIndex((s) => s.worker === w && s.cwd === cwd))
      .find((i) => i >= 0);
    if (index === undefined) {
      // Spares for another directory (the proxy's panel sessions each have theirs) are not kept waiting.
      for (const stale of this.spares.filter((s) => s.cwd !== cwd && (s.worker === worker || s.worker === null))) this.drop(stale);
      return null;
    }
    const [spare] = this.spares.splice(index, 1);
    return spare!.session.then((session) => ({ ...session, ahead: true }), () => this.hooks.create(cwd));
  }

  /**
   * The program may think (`thinks` think blocks in its text): sessions for its first thinks,
   * as many as one thread may have made ahead.
   */
  start(thinks: number, cwd: string): void {
    if (thinks > 0) this.topUp(thinks, cwd, null, "start");
  }

  /**
   * A think of `worker` has its session and is about to prompt: make what its text foretells
   * (its nested thinks, the next iteration of its loop).
   */
  afterOpen(request: ThinkRequest, cwd: string, worker: string): void {
    const site = `${worker}\0${request.fileName}\0${request.span.start.offset}`;
    const again = this.sites.has(site);
    this.sites.add(site);
    const nested = request.ahead?.nested ?? 0;
    const next = request.ahead?.loop || again ? 1 : 0;
    if (nested > 0) this.topUp(nested, cwd, worker, "nested");
    if (next > 0) this.topUp(nested + next, cwd, worker, "next");
  }

  /**
   * Makes spares until `worker` (null: the program, before any think) has `wanted` it could
   * take (its own and those made for any thread), within the bounds: `perWorker` made for it,
   * `total` in all.
   */
  private topUp(wanted: number, cwd: string, worker: string | null, reason: AheadReason): void {
    const usable = () => this.spares.filter((s) => s.cwd === cwd && (s.worker === worker || s.worker === null)).length;
    const own = () => this.spares.filter((s) => s.worker === worker).length;
    while (
      !this.closed &&
      usable() < wanted &&
      own() < this.limits.perWorker &&
      this.spares.length < this.limits.total &&
      this.hooks.room() > this.spares.length
    ) {
      const session = this.hooks.create(cwd);
      session.catch(() => undefined);
      this.spares.push({ cwd, worker, session });
      this.hooks.made?.(reason, worker);
    }
  }

  private drop(spare: Spare): void {
    this.spares.splice(this.spares.indexOf(spare), 1);
    spare.session.then((session) => this.hooks.discard(session)).catch(() => undefined);
  }

  /** Closes every spare not taken (the runtime is closing); none is made after. */
  async closeAll(waitMs: number): Promise<void> {
    this.closed = true;
    const spares = this.spares.splice(0);
    if (spares.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const closing = spares.map((s) => s.session.then((session) => this.hooks.discard(session)).catch(() => undefined));
    await Promise.race([Promise.allSettled(closing), new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
  }
}
