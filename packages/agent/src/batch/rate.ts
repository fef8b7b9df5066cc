/**
 * The governor's rate check (`--rate`), behind a small seam: a run on one machine counts its
 * starts here in memory (`LocalRateLimiter`); a fleet's run counts them in Redis, once for all
 * its machines (packages/fleet `RedisRateLimiter`).
 */

/** At most `limit` thinks start in any `windowMs`. */
export interface RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  /**
   * Takes a start now if the window has room: 0 (the start is counted); else how long (ms,
   * ≥ 1) until it may have room, and nothing is counted.
   */
  take(now: number): number | Promise<number>;
}

/** The starts of this process, a sliding window over the last `windowMs`. */
export class LocalRateLimiter implements RateLimiter {
  private readonly starts: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  take(now: number): number {
    while (this.starts.length > 0 && this.starts[0]! <= now - this.windowMs) this.starts.shift();
    if (this.starts.length < this.limit) {
      this.starts.push(now);
      return 0;
    }
    return Math.max(1, this.starts[this.starts.length - this.limit]! + this.windowMs - now);
  }
}

/** The number of starts a window of `windowMs` allows at `perMinute` (at least one). */
export function startsPerWindow(perMinute: number, windowMs: number): number {
  return Math.max(1, Math.floor((perMinute * windowMs) / 60_000));
}
