/**
 * Keeps a long run's memory bounded with agents that keep something for every session even
 * after Patchwork is done with it: Gemini CLI cannot close sessions at all (0.61), and Codex's
 * app-server keeps about 1 MB of every thread it was asked to close and delete. The only way
 * to give that memory back is to end the process. `RecyclingAgent` runs one `AcpAgent` at a
 * time and, once `restartAfterSessions` thinks have had a session of it, replaces it with a fresh one
 * **between thinks**: only when no think of the old process is under way (never inside a
 * nested think or a `do` block's think), so no conversation is ever cut. The old process is
 * closed (its group killed, its MCP endpoints stopped) before the new one starts, so the two
 * never hold memory at the same time.
 *
 * A process that died by itself (crashed, exited) is replaced too, by the next think that
 * comes: the batch policy asks a think that failed with PW4004 again (batch/transient.ts), and
 * so in a new process. A replacement that fails to start fails that think only; the next one
 * tries again (the retry count bounds how often).
 *
 * Other uses of the process (the pass-through conversations of `patchwork acp`) go through
 * `use`, which waits for a restart under way and holds the process meanwhile: a restart then
 * also waits until none of them is under way. They are not counted: only thinks are.
 *
 * The limit comes from the options (`--restart-agent-after N`; 0 never restarts) or else from
 * the agent's profile (`AgentProfile.restartAfterSessions`); agents that free their sessions
 * (Claude Code) have none and are never restarted.
 */
import type { ThinkRequest } from "@patchwork/interpreter";
import type { Diagnostic } from "@patchwork/parser";
import type { AsyncAgent, AsyncRunChild, AsyncThinkReply, SessionHint, ThinkContext } from "../types.js";
import { AcpAgent, type AcpAgentOptions } from "./agent.js";
import type { AgentProcess, ProcessFault } from "./process.js";
import { genericTransient, type ThinkFailure, type Transient } from "../batch/transient.js";

export class RecyclingAgent implements AsyncAgent {
  private current: AcpAgent;
  /** A restart under way (thinks that arrive meanwhile wait for it), or one that failed. */
  private renewal: Promise<void> | null = null;
  /** Late-`do` diagnostics of the processes already replaced. */
  private readonly retired: Diagnostic[] = [];
  private restarts = 0;
  /** Thinks and `use` calls under way on the current process (no restart meanwhile). */
  private inUse = 0;
  private renewalFailed = false;
  private closed = false;
  /** Aborted by `cancel`/`close`: a restart under way is abandoned (its process killed). */
  private readonly stopping = new AbortController();
  private readonly faultListeners: ((fault: ProcessFault) => void)[] = [];

  private constructor(
    private readonly options: AcpAgentOptions,
    first: AcpAgent,
  ) {
    this.current = first;
  }

  /** Spawns and initializes the first agent process (rejects as `AcpAgent.start` does). */
  static async start(options: AcpAgentOptions): Promise<RecyclingAgent> {
    return new RecyclingAgent(options, await AcpAgent.start(options));
  }

  /** The agent process now in use. */
  get agent(): AcpAgent {
    return this.current;
  }

  get process(): AgentProcess {
    return this.current.process;
  }

  /** Calls `listener` when the process in use faults (exits by itself, garbage on stdout), this one or a later one. */
  onFault(listener: (fault: ProcessFault) => void): void {
    this.faultListeners.push(listener);
    this.current.process.onFault(listener);
  }

  /** How many times the agent process was replaced. */
  get restartCount(): number {
    return this.restarts;
  }

  /** Thinks per process before a restart; 0 when this agent is never restarted. */
  get restartAfterSessions(): number {
    return this.current.restartAfterSessions;
  }

  /** Errors noticed outside any think, of every process of the run. */
  get diagnostics(): Diagnostic[] {
    return this.retired.length === 0 ? this.current.diagnostics : [...this.retired, ...this.current.diagnostics];
  }

  /**
   * True when the process died by itself (not replaced by a restart under way), or a restart
   * failed: nothing more can be done with this agent (the proxy then starts a new one).
   */
  get dead(): boolean {
    if (this.renewal) return this.renewalFailed;
    return this.current.process.fault !== null || !this.current.process.alive;
  }

  async think(request: ThinkRequest, runChild: AsyncRunChild, signal: AbortSignal, context: ThinkContext): Promise<AsyncThinkReply> {
    const limit = this.restartAfterSessions;
    if (!this.renewal && !this.closed && this.exited) this.renewal = this.replaceExited();
    else if (!this.renewal && !this.closed && limit > 0 && this.current.sessionsUsed >= limit && this.inUse === 0 && this.current.idle)
      this.renewal = this.renew(limit);
    return this.use((agent) => agent.think(request, runChild, signal, context));
  }

  /**
   * Runs `fn` with the current process, after a restart under way; no restart starts until it
   * settles. A failed restart stays failed: every later call reports why the agent could not start.
   */
  async use<T>(fn: (agent: AcpAgent) => Promise<T>): Promise<T> {
    while (this.renewal) await this.renewal;
    this.inUse++;
    try {
      return await fn(this.current);
    } finally {
      this.inUse--;
    }
  }

  private async renew(limit: number): Promise<void> {
    const old = this.current;
    this.options.onEvent?.({ type: "agent-restarting", pid: old.process.pid ?? null, sessions: old.sessionsUsed, limit });
    this.retired.push(...old.diagnostics);
    try {
      await old.close();
      this.current = await AcpAgent.start({ ...this.options, process: undefined, startSignal: this.stopping.signal });
      for (const listener of this.faultListeners) this.current.process.onFault(listener);
    } catch (error) {
      this.renewalFailed = true;
      throw error;
    }
    this.restarts++;
    this.renewal = null;
  }

  /** The current process died by itself (a restart under way or failed is not that). */
  private get exited(): boolean {
    return !this.renewalFailed && (this.current.process.fault !== null || !this.current.process.alive);
  }

  /**
   * A new process in place of one that died: thinks still waiting on the dead one have failed
   * (or fail now, as it is closed). A failed start rejects the thinks waiting for it, and the
   * next think tries again.
   */
  private async replaceExited(): Promise<void> {
    const old = this.current;
    try {
      await old.close();
      this.current = await AcpAgent.start({ ...this.options, process: undefined, startSignal: this.stopping.signal });
      this.retired.push(...old.diagnostics);
      for (const listener of this.faultListeners) this.current.process.onFault(listener);
      this.restarts++;
    } finally {
      this.renewal = null;
    }
  }

  /** Whether a failed think may pass if asked again: by the agent's profile, else the generic rule (batch/transient.ts). */
  transient(failure: ThinkFailure): Transient | null {
    const own = this.current.profile.transient?.(failure);
    return own !== undefined ? own : genericTransient(failure);
  }

  /** Sessions made ahead of need: by the current process (none while a restart is under way). */
  prepare(hint: SessionHint): void {
    if (!this.renewal && !this.closed) this.current.prepare(hint);
  }

  cancel(reason?: string): void {
    this.stopping.abort();
    this.current.cancel(reason);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A restart under way is abandoned: its process is killed and `start` rejects.
    this.stopping.abort();
    await this.renewal?.catch(() => undefined);
    await this.current.close();
  }
}
