/**
 * The evaluator thread's `Agent` and `Workers` (evaluator-worker.ts): each think, shell
 * command, join or receive is a request to the main thread on a channel of its own, and the
 * thread blocks on it (seeds: `eval_think_block`); a think's `do` calls come back on the same
 * channel and run here.
 */
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type {
  Agent,
  AgentError as AgentErrorClass,
  ChildResult,
  DelegateMode,
  JoinResult,
  JsonValue,
  ReceiveResult,
  RunChild,
  SessionUsage,
  ShellOptions,
  ShellResult,
  ThinkReply,
  ThinkRequest,
  WorkerTask,
  Workers,
} from "@patchwork/interpreter";
import type { Program } from "@patchwork/parser";
import { ChannelSet } from "./channel.js";
import type { ThinkReplyMessage, ThinkResponse, WorkerInit, WorkerMessage } from "./protocol.js";
import { outbox, post, takeHeldStart } from "./thread-port.js";

export class ThreadAgent implements Agent {
  private seq = 0;
  private readonly channels: ChannelSet<ThinkResponse>;
  private readonly replies: MessagePort;
  /** Completed thinks whose conversation may still get its follow-up turn. */
  private readonly idle = new Set<number>();

  /** `AgentError`: the evaluator module's own class (the interpreter exports it), so that `instanceof` holds there. */
  constructor(private readonly AgentError: typeof AgentErrorClass) {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.replies = port1;
    this.channels = new ChannelSet(port1, new Int32Array(signal));
    post({ type: "hello", port: port2, signal }, [port2]);
  }

  /**
   * A think a task run resumably may suspend in (decision 0016, "Thinks"): its driver posts it as
   * a `wait` and the main thread answers it with `wait-answer`, this thread free meanwhile.
   */
  defer(request: ThinkRequest): ThinkRequest {
    outbox.stopHolding();
    this.releaseIdle();
    return request;
  }

  think(request: ThinkRequest, runChild: RunChild): ThinkReply {
    // A think the cassette (if any) lacks: what the replay printed goes out now, and from now
    // on everything at once (its answer is journaled as it arrives).
    outbox.stopHolding();
    this.releaseIdle();
    const seq = ++this.seq;
    this.channels.open(seq);
    post({ type: "think", seq, request, start: takeHeldStart(request.id) });
    return this.await(seq, runChild);
  }

  private await(seq: number, runChild: RunChild): ThinkReply {
    for (;;) {
      const response = this.channels.receive(seq);
      switch (response.type) {
        case "do": {
          let result: ChildResult;
          try {
            result = runChild(response.index);
          } catch (error) {
            // Not a user-level failure (a limit, an internal error): tell the agent, then unwind.
            this.send({ seq, type: "do-result", doId: response.doId, result: { ok: false, error: String(error) } });
            this.send({ seq, type: "release" });
            this.channels.close(seq);
            throw error;
          }
          this.send({ seq, type: "do-result", doId: response.doId, result });
          break;
        }
        case "complete":
          if (!response.ok) {
            this.channels.close(seq);
            throw new this.AgentError(response.code, response.message);
          }
          if (!response.canFollowUp) {
            this.channels.close(seq);
            return { kind: "text", text: response.text };
          }
          this.idle.add(seq);
          return {
            kind: "text",
            text: response.text,
            followUp: (message, nextRunChild) => {
              if (!this.idle.delete(seq)) throw new this.AgentError("PW4013", "this conversation can no longer be continued");
              this.send({ seq, type: "follow-up", message });
              return this.await(seq, nextRunChild);
            },
          };
        case "cancel":
          this.channels.close(seq);
          throw new this.AgentError(response.code, response.message);
      }
    }
  }

  /** Runs a shell command on the main thread (killable on cancel) and blocks for its result. */
  shell(command: string, options: ShellOptions): ShellResult {
    const seq = ++this.seq;
    this.channels.open(seq);
    post({ type: "shell", seq, command, cwd: options.cwd, env: options.env, ...(options.at ? { at: options.at } : {}) });
    try {
      for (;;) {
        const response = this.channels.receive(seq);
        if (response.type === "shell-result") return response.result;
        if (response.type === "cancel") throw new this.AgentError(response.code, response.message);
      }
    } finally {
      this.channels.close(seq);
    }
  }

  /** Posts a request answered on a channel of its own, and blocks for the answer. */
  request<T extends ThinkResponse["type"]>(type: T, make: (seq: number) => WorkerMessage): Extract<ThinkResponse, { type: T }> {
    const seq = ++this.seq;
    this.channels.open(seq);
    post(make(seq));
    try {
      for (;;) {
        const response = this.channels.receive(seq);
        if (response.type === type) return response as Extract<ThinkResponse, { type: T }>;
        if (response.type === "cancel") throw new this.AgentError(response.code, response.message);
      }
    } finally {
      this.channels.close(seq);
    }
  }

  private send(message: ThinkReplyMessage): void {
    outbox.flush();
    this.replies.postMessage(message);
  }

  releaseIdle(): void {
    for (const seq of this.idle) {
      this.send({ seq, type: "release" });
      this.channels.close(seq);
    }
    this.idle.clear();
  }
}

/**
 * The threaded `Workers`: tasks, joins and mailboxes are the main thread's business (it starts
 * an evaluator thread per task); this thread asks and blocks on its channel for the answers.
 */
export class ThreadWorkers implements Workers {
  readonly sessionId: string;
  readonly sessionTimestamp: string;
  private groups = 0;
  /** The program's AST (the program's own thread), handed to the main thread with the first delegation. */
  program: Program | undefined;
  constructor(
    private readonly agent: ThreadAgent,
    private readonly session: NonNullable<WorkerInit["session"]>,
  ) {
    this.sessionId = session.id;
    this.sessionTimestamp = session.timestamp;
  }
  /** The main thread creates the directory (it owns the session and removes it at the end). */
  sessionDir(): string {
    const answer = this.agent.request("session-dir", (seq) => ({ type: "session-dir", seq })).result;
    if (!answer.ok) throw new Error(answer.message);
    return this.session.dir;
  }
  /** The main thread counts what the run asks and spends (batch/totals.ts). */
  sessionUsage(): SessionUsage {
    return this.agent.request("session-usage", (seq) => ({ type: "session-usage", seq })).result;
  }
  start(tasks: WorkerTask[], mode?: DelegateMode): number {
    const group = ++this.groups;
    const program = this.program;
    this.program = undefined;
    post({ type: "delegate", group, tasks, ...(mode === "settle" ? { mode } : {}), ...(program ? { program } : {}) });
    return group;
  }
  join(group: number): JoinResult {
    return this.agent.request("joined", (seq) => ({ type: "join", seq, group })).result;
  }
  send(mailbox: string, value: JsonValue): void {
    post({ type: "send", mailbox, value });
  }
  receive(mailbox: string, timeoutMs: number): ReceiveResult {
    return this.agent.request("received", (seq) => ({ type: "receive", seq, mailbox, timeoutMs })).result;
  }
}
