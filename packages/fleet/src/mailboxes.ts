/**
 * A run's mailboxes on the fleet's Redis (`self.session.mailbox.NAME`, docs/workers.md), so that
 * tasks on different machines share them: a box is a Redis list (`RPUSH` to send); a receive
 * takes the oldest message (`LPOP`), else waits in `BLPOP` on a connection of its own until its
 * timeout — Redis serves blocked receivers first come, first served, each message to one.
 */
import type { JsonValue, ReceiveResult } from "@patchwork/interpreter";
import type { MailboxStore } from "@patchwork/agent";
import type { Redis } from "ioredis";
import { redisOf } from "./connect.js";
import type { QueueAddress } from "./url.js";

interface Waiter {
  owner: object;
  connection: Redis;
}

export class RedisMailboxes implements MailboxStore<object> {
  private readonly redis: Redis;
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  constructor(
    private readonly address: QueueAddress,
    /** The Redis key of a box (its name as the threads give it: scoped per run on a worker). */
    private readonly keyOf: (name: string) => string,
    /** Every box key used, to remove at the end of the run. */
    private readonly boxesKey: (name: string) => string,
    private readonly changed: () => void,
  ) {
    this.redis = redisOf(address);
    this.redis.on("error", () => undefined);
  }

  send(name: string, value: JsonValue): void {
    const key = this.keyOf(name);
    void this.redis.multi().rpush(key, JSON.stringify(value)).sadd(this.boxesKey(name), key).exec().catch(() => undefined);
  }

  receive(owner: object, reply: (result: ReceiveResult) => void, name: string, timeoutMs: number): void {
    const key = this.keyOf(name);
    const connection = redisOf(this.address);
    connection.on("error", () => undefined);
    const waiter: Waiter = { owner, connection };
    this.waiters.add(waiter);
    this.changed();
    // (BLPOP takes seconds; 0 would wait forever: a receive always has a timeout.)
    const seconds = Math.max(0.01, timeoutMs / 1000);
    connection.blpop(key, seconds).then(
      (popped) => {
        if (!this.waiters.delete(waiter)) return;
        connection.disconnect();
        reply(popped ? { ok: true, value: JSON.parse(popped[1]) as JsonValue } : { ok: false, reason: "timeout" });
        this.changed();
      },
      () => {
        // Dropped (its owner stopped), or Redis went away: a receive that can no longer come times out.
        if (!this.waiters.delete(waiter) || this.closed) return;
        connection.disconnect();
        reply({ ok: false, reason: "timeout" });
        this.changed();
      },
    );
  }

  dropWaiters(owner: object): void {
    for (const w of this.waiters) {
      if (w.owner !== owner) continue;
      this.waiters.delete(w);
      w.connection.disconnect();
    }
  }

  clear(): void {
    this.closed = true;
    for (const w of this.waiters) w.connection.disconnect();
    this.waiters.clear();
    this.redis.disconnect();
  }
}
