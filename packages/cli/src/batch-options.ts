/**
 * `run`'s batch policy options (docs/cli.md): `--retries N` (or `$PATCHWORK_RETRIES`) and
 * `--rate N/min` (or `$PATCHWORK_RATE`), checked before anything starts. `$PATCHWORK_RETRY_DELAY_MS`
 * sets the first retry's delay (default 5 s), for tests and impatient users.
 */
import type { BatchPolicyOptions } from "@patchwork/agent/run";
import { UsageError } from "./files.js";

export interface BatchArgs {
  retries?: number;
  rate?: string | number;
}

/** The policy of a run with an agent; throws a UsageError for a value it cannot take. */
export function batchPolicy(args: BatchArgs, env: NodeJS.ProcessEnv = process.env): BatchPolicyOptions {
  const retries = args.retries ?? wholeNumber(env.PATCHWORK_RETRIES, "$PATCHWORK_RETRIES");
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0 && retries <= 100))
    throw new UsageError("--retries takes a whole number of retries from 0 (never ask a think again) to 100");
  const rateText = args.rate ?? env.PATCHWORK_RATE;
  const rate = rateText === undefined || rateText === "" ? null : perMinute(String(rateText));
  // `N/s`: at most N in any second (not 60·N bunched at the start of a minute).
  const perSecond = rate !== null && rate % 60 === 0 && /\/\s*s(ec)?\s*$/i.test(String(rateText));
  const base = wholeNumber(env.PATCHWORK_RETRY_DELAY_MS, "$PATCHWORK_RETRY_DELAY_MS");
  return {
    ...(retries !== undefined ? { retries } : {}),
    rate,
    ...(perSecond ? { rateWindowMs: 1000 } : {}),
    ...(base !== undefined ? { retryBaseMs: base } : {}),
  };
}

/** `30`, `30/min`, `30/m`, `2/s`, `600/h` → thinks per minute. */
function perMinute(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|m|min|h|hour))?\s*$/i.exec(text);
  const unit = match?.[2]?.toLowerCase() ?? "min";
  const value = match ? Number(match[1]) * (unit.startsWith("s") ? 60 : unit.startsWith("h") ? 1 / 60 : 1) : NaN;
  if (!(value >= 1) || !Number.isFinite(value))
    throw new UsageError(`--rate takes thinks per minute, at least 1: 30, 30/min, 2/s or 600/h (not ${JSON.stringify(text)})`);
  return Math.floor(value);
}

function wholeNumber(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${name} takes a whole number (not ${JSON.stringify(text)})`);
  return Number(text);
}
