/**
 * The TypeScript counterpart of `std::sync::mpsc`: the receiving side blocks. The sender
 * posts on a MessagePort, then bumps an Int32 in a SharedArrayBuffer and notifies; the
 * receiver drains the port with `receiveMessageOnPort` and `Atomics.wait`s on the counter
 * when it is empty. `postMessage` enqueues synchronously, so a bump always finds its message.
 *
 * Each think gets its own logical channel (its `seq`): `ChannelSet.receive(seq)` blocks
 * until a message for that think arrives, keeping messages for other (outer, blocked)
 * thinks in their own mailboxes until their turn comes.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";

export function sendSignalled(port: MessagePort, flag: Int32Array, message: unknown): void {
  port.postMessage(message);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}

export class ChannelSet<T extends { seq: number }> {
  private readonly mailboxes = new Map<number, T[]>();

  constructor(
    private readonly port: MessagePort,
    private readonly flag: Int32Array,
  ) {}

  open(seq: number): void {
    this.mailboxes.set(seq, []);
  }

  close(seq: number): void {
    this.mailboxes.delete(seq);
  }

  /** Blocks the calling thread until a message for channel `seq` arrives. */
  receive(seq: number): T {
    const own = this.mailboxes.get(seq);
    if (own && own.length > 0) return own.shift()!;
    for (;;) {
      const seen = Atomics.load(this.flag, 0);
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
        const message = m.message as T;
        if (message.seq === seq) return message;
        // For another think still waiting further down the stack; dropped if it is closed.
        this.mailboxes.get(message.seq)?.push(message);
      }
      Atomics.wait(this.flag, 0, seen);
    }
  }
}
