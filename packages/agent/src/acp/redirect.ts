/**
 * The redirect actor of the seeds: a stack of think handlers. Every incoming session
 * notification, prompt response and `do` invocation is routed to the top of the stack.
 * With workers there is one stack per evaluator thread (`Thinker.worker`): thinks of one
 * thread nest (a `do` may think again), thinks of different threads run side by side, and a
 * message goes to the thread whose top think owns its session.
 *
 * A message whose session id is not the top's is a protocol anomaly (except updates that only
 * report session state, such as usage, available commands or the title, which may come at any
 * time): it is reported (event and logger, never the console) and then handled safely — delivered to the handler that
 * owns the session if it is still active (it waits in that handler's inbox), otherwise
 * dropped (`do` calls are answered with a tool error by `onOrphan`).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { PromptResponse, SessionUpdate } from "@agentclientprotocol/sdk/unstable";

export type PerSessionMessage =
  | { kind: "update"; update: SessionUpdate }
  | { kind: "stop"; response: PromptResponse }
  | { kind: "failed"; error: unknown }
  | { kind: "do"; index: number; respond: (result: CallToolResult) => void };

/** Updates that belong to a turn: off the top of the stack they are anomalies. */
const TURN_CONTENT = new Set<string>(["agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "user_message_chunk"]);

export interface Thinker {
  readonly sessionId: string;
  /** The evaluator thread it belongs to (its stack); default "main". */
  readonly worker?: string;
  deliver(message: PerSessionMessage): void;
}

export type RedirectMessage =
  | { type: "IncomingMessage"; sessionId: string; message: PerSessionMessage }
  | { type: "PushThinker"; thinker: Thinker }
  | { type: "PopThinker"; thinker: Thinker };

export interface RedirectHooks {
  anomaly(message: string): void;
  /** A message for a session with no active handler (a `do` after the turn ended…). */
  orphan(sessionId: string, message: PerSessionMessage): void;
}

export class RedirectActor {
  /** One stack of handlers per evaluator thread. */
  private readonly stacks = new Map<string, Thinker[]>();
  /** Sessions created but whose handler is not pushed yet: their messages wait for it. */
  private readonly expected = new Map<string, PerSessionMessage[]>();

  constructor(private readonly hooks: RedirectHooks) {}

  /** Handlers on all stacks. */
  get depth(): number {
    let n = 0;
    for (const stack of this.stacks.values()) n += stack.length;
    return n;
  }

  /** The top of the stack of `worker` (default "main"). */
  top(worker = "main"): Thinker | undefined {
    const stack = this.stacks.get(worker);
    return stack?.[stack.length - 1];
  }

  private stackOf(thinker: Thinker): Thinker[] {
    const key = thinker.worker ?? "main";
    let stack = this.stacks.get(key);
    if (!stack) this.stacks.set(key, (stack = []));
    return stack;
  }

  /** The handler on top of some stack whose session is `sessionId`. */
  private topFor(sessionId: string): Thinker | undefined {
    for (const stack of this.stacks.values()) {
      const top = stack[stack.length - 1];
      if (top && top.sessionId === sessionId) return top;
    }
    return undefined;
  }

  /** A session was just created; its handler will be pushed soon. Messages for it are kept until then. */
  expect(sessionId: string): void {
    this.expected.set(sessionId, []);
  }

  /** The session's handler will never be pushed (its set-up failed): drop what was kept. */
  forget(sessionId: string): void {
    this.expected.delete(sessionId);
  }

  send(message: RedirectMessage): void {
    switch (message.type) {
      case "PushThinker": {
        this.stackOf(message.thinker).push(message.thinker);
        const early = this.expected.get(message.thinker.sessionId);
        this.expected.delete(message.thinker.sessionId);
        for (const kept of early ?? []) message.thinker.deliver(kept);
        return;
      }
      case "PopThinker": {
        const stack = this.stackOf(message.thinker);
        const index = stack.lastIndexOf(message.thinker);
        if (index === stack.length - 1) stack.pop();
        else if (index >= 0) {
          this.hooks.anomaly(`think session ${message.thinker.sessionId} finished while not on top of the stack`);
          stack.splice(index, 1);
        }
        if (stack.length === 0) this.stacks.delete(message.thinker.worker ?? "main");
        return;
      }
      case "IncomingMessage":
        this.route(message.sessionId, message.message);
        return;
    }
  }

  private route(sessionId: string, message: PerSessionMessage): void {
    const top = this.topFor(sessionId);
    if (top) {
      top.deliver(message);
      return;
    }
    const early = this.expected.get(sessionId);
    if (early) {
      early.push(message);
      return;
    }
    let owner: Thinker | undefined;
    for (const stack of this.stacks.values()) owner ??= stack.find((thinker) => thinker.sessionId === sessionId);
    if (message.kind === "update" && !TURN_CONTENT.has(message.update.sessionUpdate)) {
      // State the agent reports about a session (commands, usage, title, mode, plan…) may come
      // at any time, before a turn or after it: not an anomaly. Its own handler gets it if active.
      if (owner) owner.deliver(message);
      else this.hooks.orphan(sessionId, message);
      return;
    }
    const what = message.kind === "do" ? `do(${message.index})` : message.kind;
    const active = owner ? this.top(owner.worker ?? "main") : this.top();
    this.hooks.anomaly(
      `protocol anomaly: ${what} for session ${sessionId}, but the active think is ${active ? `session ${active.sessionId}` : "none"}`,
    );
    if (owner) owner.deliver(message);
    else this.hooks.orphan(sessionId, message);
  }
}

/** An unbounded async queue with failure: the per-think channel (`think_rx`). */
export class Inbox<T> {
  private readonly items: T[] = [];
  private waiter: { resolve: (item: T) => void; reject: (error: unknown) => void } | null = null;
  private failure: { error: unknown } | null = null;

  push(item: T): void {
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = null;
      waiter.resolve(item);
    } else this.items.push(item);
  }

  fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = null;
      waiter.reject(error);
    }
  }

  get failed(): boolean {
    return this.failure !== null;
  }

  next(): Promise<T> {
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.items.length > 0) return Promise.resolve(this.items.shift()!);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** Items still queued (to answer pending `do` calls on shutdown). */
  drain(): T[] {
    return this.items.splice(0);
  }
}
