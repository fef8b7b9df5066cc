/**
 * The run's mailboxes (`self.session.mailbox.NAME`, docs/workers.md), kept by the pool on the
 * main thread: a message goes to the longest-waiting receiver, else waits in its box; a
 * receive takes the oldest message, else waits (until its timeout) in the order it came.
 * `Owner`: whoever waits (a thread), so that a stopped one's waits are dropped.
 */
import type { JsonValue, ReceiveResult } from "@patchwork/interpreter";

interface Waiter<Owner> {
  owner: Owner;
  reply: (result: ReceiveResult) => void;
  timer: NodeJS.Timeout;
}

/**
 * Where a run's mailboxes are: this process's memory (`Mailboxes`, the default) or a fleet's
 * Redis (packages/fleet), so that tasks on other machines share them. `changed`: called after a
 * receive starts waiting or is answered.
 */
export interface MailboxStore<Owner> {
  send(name: string, value: JsonValue): void;
  receive(owner: Owner, reply: (result: ReceiveResult) => void, name: string, timeoutMs: number): void;
  /** A stopped owner's pending receives are dropped (unanswered). */
  dropWaiters(owner: Owner): void;
  /** The run is over. */
  clear(): void;
}

export type MailboxStoreFactory = (changed: () => void) => MailboxStore<object>;

export class Mailboxes<Owner> implements MailboxStore<Owner> {
  private readonly boxes = new Map<string, { messages: JsonValue[]; waiters: Waiter<Owner>[] }>();

  /** `changed`: called after a receive starts waiting or is answered (the pool's scheduling counts waiting threads). */
  constructor(private readonly changed: () => void) {}

  send(name: string, value: JsonValue): void {
    const box = this.box(name);
    const waiter = box.waiters.shift();
    if (waiter) this.answer(waiter, { ok: true, value });
    else box.messages.push(value);
  }

  receive(owner: Owner, reply: (result: ReceiveResult) => void, name: string, timeoutMs: number): void {
    const box = this.box(name);
    if (box.messages.length > 0) {
      reply({ ok: true, value: box.messages.shift()! });
      return;
    }
    const waiter: Waiter<Owner> = {
      owner,
      reply,
      timer: setTimeout(() => {
        const i = box.waiters.indexOf(waiter);
        if (i >= 0) box.waiters.splice(i, 1);
        this.answer(waiter, { ok: false, reason: "timeout" });
      }, Math.min(timeoutMs, 2 ** 31 - 1)),
    };
    box.waiters.push(waiter);
    this.changed();
  }

  /** A stopped owner's pending receives are dropped (unanswered: the owner is gone). */
  dropWaiters(owner: Owner): void {
    for (const box of this.boxes.values()) {
      box.waiters = box.waiters.filter((w) => {
        if (w.owner !== owner) return true;
        clearTimeout(w.timer);
        return false;
      });
    }
  }

  /** Every box emptied, every wait's timer stopped (the run is over). */
  clear(): void {
    for (const box of this.boxes.values()) for (const w of box.waiters) clearTimeout(w.timer);
    this.boxes.clear();
  }

  private box(name: string) {
    let box = this.boxes.get(name);
    if (!box) this.boxes.set(name, (box = { messages: [], waiters: [] }));
    return box;
  }

  private answer(w: Waiter<Owner>, result: ReceiveResult): void {
    clearTimeout(w.timer);
    w.reply(result);
    this.changed();
  }
}
