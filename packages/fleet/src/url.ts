/**
 * The queue's address: `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]` or `rediss://…` (TLS), as
 * `--queue` and `PATCHWORK_QUEUE` give it. The password never appears in messages.
 */
import type { RedisOptions } from "ioredis";

export class FleetError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Error codes of the fleet (docs/errors.md). */
export const FleetCodes = {
  /** The queue's URL is not a Redis URL. */
  badUrl: "PW4060",
  /** Redis does not answer at the start. */
  unreachable: "PW4061",
  /** A task's sources differ on the machine that took it. */
  sourcesDiffer: "PW4062",
  /** Redis went away during the run. */
  lost: "PW4063",
} as const;

export interface QueueAddress {
  /** For ioredis (and BullMQ). */
  options: RedisOptions;
  /** The URL without its password, for messages and logs. */
  shown: string;
}

export function parseQueueUrl(text: string): QueueAddress {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new FleetError(FleetCodes.badUrl, `--queue takes a Redis URL (redis://HOST:PORT[/DB] or rediss://…), not '${text}'`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new FleetError(FleetCodes.badUrl, `--queue takes a redis:// or rediss:// URL, not '${url.protocol}//…'`);
  }
  if (url.hostname === "") throw new FleetError(FleetCodes.badUrl, "the queue's URL names no host");
  const port = url.port === "" ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, "");
  if (path !== "" && !/^\d{1,5}$/.test(path)) {
    throw new FleetError(FleetCodes.badUrl, `the queue's URL ends in a database number (/0, /1, …), not '/${path}'`);
  }
  const options: RedisOptions = {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port,
    ...(path !== "" ? { db: Number(path) } : {}),
    ...(url.username !== "" ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== "" ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === "rediss:" ? { tls: { servername: url.hostname } } : {}),
  };
  const shown = `${url.protocol}//${url.username !== "" || url.password !== "" ? `${url.username}:***@` : ""}${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  return { options, shown };
}
