/**
 * Connections to the queue's Redis. At the start a run or a worker checks that Redis answers
 * (PW4061 at once, exit 2, instead of waiting for it forever); after that ioredis reconnects by
 * itself when Redis restarts, and BullMQ goes on.
 */
import { Redis, type RedisOptions } from "ioredis";
import { FleetCodes, FleetError, type QueueAddress } from "./url.js";

/** How long a first connection may take. */
const CONNECT_MS = 5000;

/** A connection for our own commands (streams, lists, pub/sub); BullMQ's need `maxRetriesPerRequest: null`. */
export function redisOf(address: QueueAddress, extra: RedisOptions = {}): Redis {
  return new Redis({
    ...address.options,
    maxRetriesPerRequest: null,
    // Reconnect quickly, without end (a restarted Redis comes back).
    retryStrategy: (times) => Math.min(times * 200, 2000),
    ...extra,
  });
}

/** Checks that Redis answers (PING), else PW4061 with what went wrong. */
export async function checkReachable(address: QueueAddress): Promise<void> {
  const probe = new Redis({ ...address.options, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: CONNECT_MS });
  let lastError = "";
  probe.on("error", (error: Error) => (lastError = error.message));
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const why = lastError || (error instanceof Error ? error.message : String(error));
    throw new FleetError(FleetCodes.unreachable, `the queue's Redis at ${address.shown} does not answer: ${why}`);
  } finally {
    probe.disconnect();
  }
}
