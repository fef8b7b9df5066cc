/**
 * What an evaluator thread sends to the main thread (evaluator-worker.ts): messages tagged
 * with the task they are about, through the outbox (held in batches while the thread replays:
 * outbox.ts), and the `think-start` event held for its think's request.
 */
import { parentPort, type MessagePort } from "node:worker_threads";
import type { PwEvent } from "@patchwork/interpreter";
import { Outbox } from "./outbox.js";
import type { FromThread, WorkerMessage } from "./protocol.js";
import { TaskSlots } from "./task-slots.js";

/**
 * A `think-start` event waits here for its think's request, which follows it at once and
 * carries it to the main thread: one message instead of two on every think's path. Anything
 * else posted first (or a terminal read) sends it on its own, so the order never changes.
 */
let heldStart: Extract<PwEvent, { type: "think-start" }> | null = null;

/** A message naming the task it is about (`slots.current`) on a task thread. */
function tagged(message: WorkerMessage): FromThread {
  const task = slots.current;
  return task === undefined ? message : { ...message, task };
}

/** Messages and output leave through it: held in batches while the thread replays (outbox.ts). */
export const outbox = new Outbox((message) => parentPort!.postMessage(message), () => undefined);

/** A message for the main thread, after whatever the outbox holds. */
export function send(message: WorkerMessage, transfer?: MessagePort[]): void {
  outbox.flush();
  parentPort!.postMessage(tagged(message), transfer ?? []);
}

/** An event or a copy of output for the main thread: it may wait in the outbox. */
export function queue(message: WorkerMessage): void {
  outbox.message(tagged(message));
}

export const post = (message: WorkerMessage, transfer?: MessagePort[]) => {
  flushHeldStart();
  send(message, transfer);
};

/** The tasks this thread carries (task-slots.ts). */
export const slots = new TaskSlots(post);

export function flushHeldStart(): void {
  if (!heldStart) return;
  const event = heldStart;
  heldStart = null;
  queue({ type: "event", event } satisfies WorkerMessage);
}

export function takeHeldStart(id: number): PwEvent | undefined {
  const event = heldStart?.id === id ? heldStart : undefined;
  if (event) heldStart = null;
  return event;
}

/** Holds a `think-start` event until its think's request (or anything else) is posted. */
export function holdStart(event: Extract<PwEvent, { type: "think-start" }>): void {
  flushHeldStart();
  heldStart = event;
}
