/**
 * The main-thread end of the think channels: turns each `ThinkRequest` from the evaluator
 * thread into one `AsyncAgent.think` call, relays `Do` / do results / follow-ups, and sends
 * `Complete`. Agent-agnostic: any `AsyncAgent` works.
 */
import type { MessagePort } from "node:worker_threads";
import type { ChildResult, ThinkAnswer, ThinkRequest } from "@patchwork/interpreter";
import { AgentCodes, toAgentError } from "../errors.js";
import type { AgentEvent, AsyncAgent, AsyncRunChild, AsyncThinkReply } from "../types.js";
import { sendSignalled } from "./channel.js";
import type { HelloMessage, ThinkReplyMessage, ThinkRequestMessage, ThinkResponse } from "./protocol.js";

type Response = ThinkResponse extends infer R ? (R extends unknown ? Omit<R, "seq"> : never) : never;

export class ThinkBridge {
  private readonly open = new Map<number, OpenThink>();
  /** Deferred thinks (`startDeferred`) are keyed -1, -2, …: never a channel's `seq`. */
  private deferred = 0;
  private port: MessagePort | null = null;
  private flag: Int32Array | null = null;

  constructor(
    private readonly agent: AsyncAgent,
    private runSignal: AbortSignal,
    private emit: (event: AgentEvent) => void,
    /** The evaluator thread this bridge serves ("main" or a worker task): its thinks' redirect stack. */
    private worker?: string,
  ) {
    this.watch(runSignal);
  }

  /** A session thread's next program: its own signal and event sink. */
  nextRun(runSignal: AbortSignal, emit: (event: AgentEvent) => void): void {
    this.runSignal = runSignal;
    this.emit = emit;
    this.watch(runSignal);
  }

  /** A reused task thread's next task: its thinks are that worker's. */
  nextTask(worker: string): void {
    this.worker = worker;
  }

  private watch(runSignal: AbortSignal): void {
    // One listener for the run, not one per think (an EventTarget listener costs µs per think).
    runSignal.addEventListener("abort", () => {
      for (const think of this.open.values()) think.abortTurn();
    }, { once: true });
  }

  /** The evaluator thread's channel port: responses go out on it, replies come back on it. */
  connect(hello: HelloMessage): void {
    this.attach(hello);
    this.port!.on("message", (message: ThinkReplyMessage) => this.deliver(message));
    this.port!.unref();
  }

  /** Answers go out on the thread's port; its replies come through `deliver` (a port several tasks share: thread-host.ts). */
  attach(hello: HelloMessage): void {
    this.port = hello.port;
    this.flag = new Int32Array(hello.signal);
  }

  /** A reply from the evaluator thread, for one of this bridge's thinks or not. */
  deliver(message: ThinkReplyMessage): void {
    this.open.get(message.seq)?.onMessage(message);
  }

  start(message: ThinkRequestMessage): void {
    const { port, flag } = this;
    if (!port || !flag) throw new Error("the evaluator thread did not say hello");
    const seq = message.seq;
    const send = (response: Response) => sendSignalled(port, flag, { ...response, seq });
    const think = new OpenThink(message, send, () => this.open.delete(seq));
    this.open.set(seq, think);
    think.begin(this.agent, this.runSignal.aborted, this.emit, this.worker);
  }

  /**
   * A think its task is suspended in (decision 0016, "Thinks": no `do` block, untyped): the same
   * agent turn as `start`'s, but its answer or failure goes to `answer` (the task's `wait-answer`)
   * instead of the thread's channel. A `do` the agent asks for anyway gets the evaluator's own
   * refusal; a cancel (`cancelOpen`) answers the failure too, which the caller drops when the task
   * is gone.
   */
  startDeferred(request: ThinkRequest, answer: (a: ThinkAnswer) => void): void {
    const seq = -++this.deferred;
    let think: OpenThink | undefined = undefined;
    const send = (response: Response) => {
      if (response.type === "do") {
        const error = `there is no do block ${response.index}: this think has no do blocks`;
        think!.onMessage({ seq, type: "do-result", doId: response.doId, result: { ok: false, error } });
      } else if (response.type === "complete") answer(response.ok ? { ok: true, text: response.text } : { ok: false, code: response.code, message: response.message });
      else if (response.type === "cancel") answer({ ok: false, code: response.code, message: response.message });
    };
    think = new OpenThink({ type: "think", seq, request }, send, () => this.open.delete(seq));
    this.open.set(seq, think);
    think.begin(this.agent, this.runSignal.aborted, this.emit, this.worker);
  }

  /**
   * Whether the evaluator thread is blocked in a think, waiting for the agent (not running one
   * of its `do` children): it then uses no CPU (local-threads.ts starts other tasks meanwhile).
   */
  get waiting(): boolean {
    for (const think of this.open.values()) if (think.evaluatorWaits) return true;
    return false;
  }

  /** The request of the innermost think under way (the latest opened), if any. */
  innermost(): ThinkRequest | undefined {
    let latest: OpenThink | undefined;
    for (const think of this.open.values()) latest = think;
    return latest?.request;
  }

  /** Answers a non-think request of the evaluator (a shell command) on its channel. */
  answer(seq: number, response: Response): void {
    if (this.port && this.flag) sendSignalled(this.port, this.flag, { ...response, seq });
  }

  /** Fails every open think (a cancelled program unwinds; the thread lives on). */
  cancelOpen(code: string, message: string): void {
    for (const think of [...this.open.values()]) think.cancel(code, message);
  }

  /** Fails every open think (the evaluator is being torn down). */
  shutdown(code: string, message: string): void {
    this.cancelOpen(code, message);
    this.port?.close();
  }
}

class OpenThink {
  get request(): ThinkRequest {
    return this.message.request;
  }

  private readonly controller = new AbortController();
  private readonly pendingDo = new Map<number, (result: ChildResult) => void>();
  private doSeq = 0;
  private reply: AsyncThinkReply | null = null;
  private closed = false;
  /** The last turn answered normally: closing needs no abort. */
  private answered = false;
  /** The evaluator thread is blocked on this think's channel (not running a `do` child, not past the answer). */
  evaluatorWaits = true;

  constructor(
    private readonly message: ThinkRequestMessage,
    private readonly post: (response: Response) => void,
    private readonly onClosed: () => void,
  ) {}

  /** Starts the agent's turn; its signal aborts with the run (the bridge calls `abortTurn`). */
  begin(agent: AsyncAgent, runAborted: boolean, emit: (event: AgentEvent) => void, worker?: string): void {
    if (runAborted) this.controller.abort();
    const signal = this.controller.signal;
    const context = worker === undefined ? { thinkId: this.message.request.id, emit } : { thinkId: this.message.request.id, emit, worker };
    this.settle(agent.think(this.message.request, this.runChild, signal, context));
  }

  private readonly runChild: AsyncRunChild = (index) =>
    new Promise((resolve) => {
      if (this.closed) {
        resolve({ ok: false, error: "the think block has finished; its do blocks cannot run any more" });
        return;
      }
      const doId = ++this.doSeq;
      this.pendingDo.set(doId, resolve);
      this.send({ type: "do", doId, index });
    });

  private settle(promise: Promise<AsyncThinkReply>): void {
    promise.then(
      (reply) => {
        if (this.closed) return;
        this.reply = reply;
        this.answered = true;
        // The interpreter continues a conversation only to repair a typed answer: an untyped
        // think is over with its answer, so it is closed now (the agent frees its session while
        // the evaluator runs on) rather than when the evaluator releases it at its next think.
        const canFollowUp = reply.followUp !== undefined && this.message.request.typeText !== null;
        this.send({ type: "complete", ok: true, text: reply.text, canFollowUp });
        if (!canFollowUp) this.close();
      },
      (error: unknown) => {
        if (this.closed) return;
        const e = toAgentError(error, AgentCodes.requestFailed);
        this.send({ type: "complete", ok: false, code: e.code, message: e.message });
        this.close();
      },
    );
  }

  onMessage(message: ThinkReplyMessage): void {
    switch (message.type) {
      case "do-result": {
        const resolve = this.pendingDo.get(message.doId);
        this.pendingDo.delete(message.doId);
        this.evaluatorWaits = true;
        resolve?.(message.result);
        return;
      }
      case "follow-up": {
        const followUp = this.reply?.followUp;
        this.reply = null;
        if (!followUp) {
          this.send({ type: "complete", ok: false, code: AgentCodes.requestFailed, message: "no follow-up possible" });
          this.close();
          return;
        }
        this.answered = false;
        this.evaluatorWaits = true;
        this.settle(followUp(message.message, this.runChild, this.controller.signal));
        return;
      }
      case "release":
        this.close();
        return;
    }
  }

  abortTurn(): void {
    this.controller.abort();
  }

  cancel(code: string, message: string): void {
    if (this.closed) return;
    this.send({ type: "cancel", code, message });
    this.close();
  }

  private send(response: Response): void {
    if (this.closed) return;
    // A `do` runs a child on the evaluator thread; an answer or a cancel lets it go on.
    this.evaluatorWaits = false;
    this.post(response);
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.answered) this.controller.abort();
    else this.reply?.done?.();
    for (const resolve of this.pendingDo.values()) resolve({ ok: false, error: "the think block was interrupted" });
    this.pendingDo.clear();
    this.onClosed();
  }
}
