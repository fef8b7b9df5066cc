/**
 * The TypeScript counterpart of `std::sync::mpsc`: a MessagePort whose receiving side
 * blocks. The sender posts, then bumps an Int32 in a SharedArrayBuffer and notifies; the
 * receiver drains the port with `receiveMessageOnPort` and `Atomics.wait`s on the counter
 * when it is empty. `postMessage` enqueues synchronously, so a bump always finds its message.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";

export function sendSignalled(port: MessagePort, flag: Int32Array, message: unknown): void {
  port.postMessage(message);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}

/** Blocks the calling thread until a message arrives on `port`. */
export function receiveBlocking<T>(port: MessagePort, flag: Int32Array): T {
  for (;;) {
    const first = receiveMessageOnPort(port);
    if (first) return first.message as T;
    const seen = Atomics.load(flag, 0);
    const second = receiveMessageOnPort(port);
    if (second) return second.message as T;
    Atomics.wait(flag, 0, seen);
  }
}
