/** The run's session: a ULID, the start time, and a scratch directory created on first use. */
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionUsage } from "../ports.js";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let crypto: typeof import("node:crypto") | undefined;

/** A ULID (https://github.com/ulid/spec): 10 characters of milliseconds, 16 of randomness. */
export function ulid(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  // node:crypto on first use: an evaluator thread never makes a session, and need not load it
  // (≈ 8 ms of every thread's start); Web Crypto would load more of it than randomBytes needs.
  crypto ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  const bytes = crypto.randomBytes(16);
  let rand = "";
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! & 31];
  return time + rand;
}

export interface SessionInfo {
  id: string;
  timestamp: string;
  /** The directory `self.session.dir` names (created by `ensureSessionDir`). */
  dir: string;
}

/** A new session: id, start time, and where its directory will be. */
export function newSession(now = Date.now()): SessionInfo {
  const id = ulid(now);
  return { id, timestamp: new Date(now).toISOString(), dir: join(tmpdir(), `patchwork-session-${id}`) };
}

/** Creates the session directory if it does not exist yet; returns its path. */
export function ensureSessionDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Removes the session directory and everything in it (at the end of a run). */
export function removeSessionDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** `self.session.usage` of a run without an agent runtime: nothing asked, nothing reported. */
export const NOTHING_SPENT: SessionUsage = Object.freeze({ thinks: 0, inputTokens: null, outputTokens: null, cost: null });
