/**
 * The run's governor: decides when a think may start. Three holds, each reported as a
 * `governor` event when it begins and ends (docs/agent.md "The governor"):
 *
 * - **rate**: at most `rate` thinks start in any 60 seconds (`--rate N/min`; `N/s`: N in any
 *   second), nested ones included, counted by a `RateLimiter` (this process's, or a fleet's in Redis);
 * - **overload**: the thinks in flight are kept under a limit that halves when a think fails
 *   with an overload of the model (once per wave: failures of thinks started before the last
 *   cut do not cut again) and grows by one for each think that succeeds (additive increase,
 *   multiplicative decrease), up to the run's own bound;
 * - **cpu / memory**: a new session waits while the machine is saturated — its CPU busy
 *   (≥ 90 % since the previous reading) with at least four thinks per core in flight, or its
 *   available memory under max(512 MiB, 5 %) with any in flight — so that starting more
 *   agent processes than the machine can run never makes the run slower, only its wait longer.
 *
 * A think started inside another think's `do` block (same evaluator thread) is never held by
 * the last two: its parent holds a place already, and waiting for itself would deadlock.
 */
import type { AgentEvent } from "../types.js";
import type { MachineProbe, MachineReading } from "./machine.js";
import { LocalRateLimiter, startsPerWindow, type RateLimiter } from "./rate.js";
import type { Transient } from "./transient.js";

/** The clock the governor and the retries wait on (tests pass a fake one). */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with `signal`'s reason if it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => (clearTimeout(timer), reject(signal!.reason));
      const timer = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

export interface GovernorOptions {
  /** Thinks that may start per minute (`--rate`); null: no cap. */
  rate: number | null;
  /** The window the rate is counted over (default 60 s; `--rate N/s`: 1 s). */
  rateWindowMs?: number;
  /** Counts the starts (default this process's, `LocalRateLimiter`; a fleet's run: one in Redis). */
  limiter?: RateLimiter;
  /** The most thinks in flight the run itself allows (its workers and program): where the limit starts and the most it grows to. */
  maxConcurrency: number;
  /** Reads the machine; null never holds for it. */
  probe: MachineProbe | null;
  emit: (event: AgentEvent) => void;
  clock?: Clock;
  /** CPU busy share from which the machine counts as saturated (default 0.9). */
  cpuBusyLimit?: number;
  /** Thinks in flight per core below which the CPU never holds one back (default 4). */
  thinksPerCore?: number;
  /** Available memory under which a new session waits (default max(512 MiB, 5 % of the total)). */
  memoryFloorBytes?: number;
  /** How often a held think looks at the machine again (default 500 ms). */
  pollMs?: number;
  /**
   * A think held for overloads or the machine starts anyway once no think has ended for this
   * long (default 30 s): the thinks in flight may be waiting for it (a `do` block receiving
   * what another task sends after its think). One such think per period.
   */
  stallMs?: number;
}

type Hold = { reason: "rate" | "overload" | "cpu" | "memory"; detail: string };

/** A think's place in flight: say how it ended. */
export interface Ticket {
  /** The think failed (a transient failure with `kind: "overload"` lowers the limit). */
  failed(transient: Transient | null): void;
  succeeded(): void;
}

const MINUTE = 60_000;

export class Governor {
  private readonly clock: Clock;
  private readonly limiter: RateLimiter | null;
  /** Top-level thinks in flight, and those of each evaluator thread (nested ones included). */
  private inFlight = 0;
  private readonly perWorker = new Map<string, number>();
  private limit: number;
  private seq = 0;
  private cutAtSeq = 0;
  private holding: Hold | null = null;
  private readonly waiters = new Set<() => void>();
  private reading: { at: number; value: MachineReading } | null = null;
  /** When a think last ended (or a stalled hold last let one through). */
  private progressAt: number;

  constructor(private readonly options: GovernorOptions) {
    this.clock = options.clock ?? realClock;
    const windowMs = options.rateWindowMs ?? MINUTE;
    this.limiter = options.rate === null ? null : (options.limiter ?? new LocalRateLimiter(startsPerWindow(options.rate, windowMs), windowMs));
    this.limit = Math.max(1, options.maxConcurrency);
    this.progressAt = this.clock.now();
  }

  /** The limit on thinks in flight now (whole). */
  get concurrencyLimit(): number {
    return Math.floor(this.limit);
  }

  /** Waits until a think of `worker` may start; rejects if `signal` aborts meanwhile. */
  async admit(worker: string, signal?: AbortSignal): Promise<Ticket> {
    const nested = (this.perWorker.get(worker) ?? 0) > 0;
    for (;;) {
      const hold = this.holdFor(nested);
      if (hold) {
        this.hold(hold.hold);
        await hold.wait(signal);
        continue;
      }
      // Its place is taken before the rate is asked (a limiter in Redis answers later): the
      // thinks that ask meanwhile see it in flight.
      this.perWorker.set(worker, (this.perWorker.get(worker) ?? 0) + 1);
      if (!nested) this.inFlight++;
      const waitMs = await this.rateWait();
      if (waitMs === 0) break;
      this.release(worker, nested);
      const { limit, windowMs } = this.limiter!;
      const detail = `${limit} thinks started in the last ${windowMs === MINUTE ? "minute" : seconds(windowMs)} (--rate ${this.rateText()}); next in ${seconds(waitMs)}`;
      this.hold({ reason: "rate", detail });
      await this.clock.sleep(waitMs, signal);
    }
    this.hold(null);
    return this.ticket(worker, nested, ++this.seq);
  }

  /** 0: a start is counted now; else how long until the rate may allow one. */
  private async rateWait(): Promise<number> {
    if (!this.limiter) return 0;
    const taken = this.limiter.take(this.clock.now());
    return typeof taken === "number" ? taken : await taken;
  }

  private rateText(): string {
    const { limit, windowMs } = this.limiter!;
    return windowMs === 1000 ? `${limit}/s` : `${this.options.rate}/min`;
  }

  /** A place in flight given back. */
  private release(worker: string, nested: boolean): void {
    const left = (this.perWorker.get(worker) ?? 1) - 1;
    if (left > 0) this.perWorker.set(worker, left);
    else this.perWorker.delete(worker);
    if (!nested) this.inFlight--;
    for (const wake of [...this.waiters]) wake();
  }

  /** Why a think may not start now and what to wait for; null: it may. */
  private holdFor(nested: boolean): { hold: Hold; wait: (signal?: AbortSignal) => Promise<void> } | null {
    const now = this.clock.now();
    if (nested) return null;
    const stallMs = this.options.stallMs ?? 30_000;
    let held: { hold: Hold; wait: (signal?: AbortSignal) => Promise<void> } | null = null;
    if (this.inFlight >= Math.floor(this.limit)) {
      const detail = `${this.inFlight} thinks in flight, at most ${Math.floor(this.limit)} while the model is overloaded`;
      const until = this.progressAt + stallMs - now;
      held = { hold: { reason: "overload", detail }, wait: (signal) => this.released(signal, until) };
    } else {
      const machine = this.machineHold();
      if (machine) held = { hold: machine, wait: (signal) => this.clock.sleep(this.options.pollMs ?? 500, signal) };
    }
    if (held && now - this.progressAt >= stallMs) {
      // No think has ended for `stallMs`: this one goes (the next waits a period more).
      this.progressAt = now;
      return null;
    }
    return held;
  }

  private machineHold(): Hold | null {
    const probe = this.options.probe;
    if (!probe || this.inFlight === 0) return null;
    const now = this.clock.now();
    const pollMs = this.options.pollMs ?? 500;
    if (!this.reading || now - this.reading.at >= pollMs) this.reading = { at: now, value: probe() };
    const m = this.reading.value;
    const floor = this.options.memoryFloorBytes ?? Math.max(512 * 2 ** 20, 0.05 * m.totalBytes);
    if (m.freeBytes < floor)
      return { reason: "memory", detail: `${mib(m.freeBytes)} MiB of memory available (under ${mib(floor)} MiB), ${this.inFlight} thinks in flight` };
    const busy = m.cpuBusy >= (this.options.cpuBusyLimit ?? 0.9);
    if (busy && this.inFlight >= m.cores * (this.options.thinksPerCore ?? 4))
      return { reason: "cpu", detail: `CPU ${Math.round(m.cpuBusy * 100)} % busy on ${m.cores} cores, ${this.inFlight} thinks in flight` };
    return null;
  }

  private ticket(worker: string, nested: boolean, seq: number): Ticket {
    let done = false;
    const end = () => {
      if (done) return false;
      done = true;
      this.progressAt = this.clock.now();
      this.release(worker, nested);
      return true;
    };
    return {
      failed: (transient) => {
        const inFlight = this.inFlight;
        if (!end() || transient?.kind !== "overload" || seq <= this.cutAtSeq) return;
        // Multiplicative decrease, from what was really in flight (a limit far above it would change nothing).
        this.limit = Math.max(1, Math.floor(Math.min(this.limit, inFlight) / 2));
        this.cutAtSeq = this.seq;
        this.changed();
      },
      succeeded: () => {
        if (!end() || this.limit >= this.options.maxConcurrency) return;
        // Additive increase: one more for each think that succeeds.
        this.limit = Math.min(this.options.maxConcurrency, Math.floor(this.limit) + 1);
        this.changed();
      },
    };
  }

  /** Resolves when a think ends, or after `ms` at most. */
  private released(signal: AbortSignal | undefined, ms: number): Promise<void> {
    const timeout = new AbortController();
    return new Promise<void>((resolve, reject) => {
      const wake = () => (this.waiters.delete(wake), timeout.abort(), signal?.removeEventListener("abort", onAbort), resolve());
      const onAbort = () => (this.waiters.delete(wake), timeout.abort(), reject(signal!.reason));
      if (signal?.aborted) return reject(signal.reason);
      this.waiters.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.clock.sleep(Math.max(0, ms), timeout.signal).then(wake, () => undefined);
    });
  }

  private hold(hold: Hold | null): void {
    if (hold === null ? this.holding === null : this.holding?.reason === hold.reason) return;
    this.holding = hold;
    this.changed();
  }

  private changed(): void {
    this.options.emit({ type: "governor", concurrency: this.inFlight, limit: Math.floor(this.limit), rate: this.options.rate, holding: this.holding });
  }
}

const seconds = (ms: number) => `${Math.max(1, Math.ceil(ms / 1000))} s`;
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
