/** The run's session: a ULID, the start time, and a scratch directory created on first use. */
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A ULID (https://github.com/ulid/spec): 10 characters of milliseconds, 16 of randomness. */
export function ulid(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  // Web Crypto's CSPRNG, loaded on first use: an evaluator thread, which never makes a session,
  // does not load node:crypto (≈ 8 ms of every thread's start).
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
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
