/**
 * One think handler task (`think_message` in the seeds): creates a session with our MCP
 * server, pushes itself on the redirect stack, prompts, processes its inbox (text chunks,
 * `do` invocations, the prompt response) until the turn ends, pops itself, and answers.
 * Follow-up turns (the typed-result repair) run in the same session.
 */
import type { ContentBlock, PromptResponse, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ChildResult, ThinkRequest } from "@patchwork/interpreter";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { AgentCodes, agentError, type AgentCode } from "../errors.js";
import { toolText } from "../mcp/do-server.js";
import type { McpDeclaration } from "../mcp/hub.js";
import type { AsyncRunChild, AsyncThinkReply, McpTransport, ThinkContext } from "../types.js";
import { Inbox, type PerSessionMessage, type RedirectActor, type Thinker } from "./redirect.js";

/** What a handler needs from the runtime that spawned it. */
export interface HandlerRuntime {
  readonly redirect: RedirectActor;
  readonly transport: McpTransport;
  readonly cwd: string;
  readonly idleTimeoutMs: number | undefined;
  readonly totalTimeoutMs: number | undefined;
  declare(call: (index: number) => Promise<CallToolResult>, sessionRef: { id: string }): Promise<McpDeclaration>;
  newSession(declaration: McpDeclaration): Promise<string>;
  prompt(sessionId: string, prompt: ContentBlock[]): Promise<PromptResponse>;
  cancelSession(sessionId: string): void;
  /** Frees the agent's session (`session/close` where advertised); fire and forget. */
  closeSession(sessionId: string): void;
  /** Maps a failed request or a dead connection to an AgentError. */
  failure(error: unknown): Promise<Error>;
  /** Registers the handler while its turn may still receive messages. */
  track(handler: ThinkHandler, active: boolean): void;
}

const STOP_ERRORS: Record<string, { code: AgentCode; text: string }> = {
  refusal: { code: AgentCodes.refusal, text: "the agent refused to answer (stop reason: refusal)" },
  max_tokens: { code: AgentCodes.maxTokens, text: "the agent ran out of tokens (stop reason: max_tokens)" },
  max_turn_requests: {
    code: AgentCodes.maxTurnRequests,
    text: "the agent hit its limit of model requests in one turn (stop reason: max_turn_requests)",
  },
  cancelled: { code: AgentCodes.cancelled, text: "the turn was cancelled (stop reason: cancelled)" },
};

export class ThinkHandler implements Thinker {
  sessionId = "";
  private readonly inbox = new Inbox<PerSessionMessage>();
  private declaration: McpDeclaration | null = null;
  private runChild: AsyncRunChild;
  private turnOpen = false;
  private readonly sessionRef = { id: "" };
  /** Tool call titles by id (updates usually omit the title). */
  private readonly toolTitles = new Map<string, string>();

  constructor(
    private readonly runtime: HandlerRuntime,
    readonly request: ThinkRequest,
    runChild: AsyncRunChild,
    private readonly signal: AbortSignal,
    private readonly context: ThinkContext,
  ) {
    this.runChild = runChild;
  }

  get thinkId(): number {
    return this.context.thinkId;
  }

  /** Where the think is written, for messages. */
  get where(): string {
    return `${this.request.fileName}:${this.request.span.start.line}:${this.request.span.start.column}`;
  }

  deliver(message: PerSessionMessage): void {
    if (!this.turnOpen && message.kind === "do") {
      message.respond(toolText(`the think block at ${this.where} has finished; its do blocks cannot run any more`, true));
      return;
    }
    this.inbox.push(message);
  }

  /** Fails the current turn (cancellation, timeout, dead agent). */
  abort(error: Error): void {
    this.inbox.fail(error);
  }

  async run(): Promise<AsyncThinkReply> {
    const { runtime } = this;
    this.declaration = await runtime.declare((index) => this.invokeDo(index), this.sessionRef);
    try {
      this.sessionId = await runtime.newSession(this.declaration);
    } catch (error) {
      await this.declaration.release();
      throw await runtime.failure(error);
    }
    this.sessionRef.id = this.sessionId;
    this.context.emit({ type: "session", thinkId: this.thinkId, sessionId: this.sessionId, transport: runtime.transport });
    return this.turn(this.request.prompt);
  }

  private reply(text: string): AsyncThinkReply {
    return {
      text,
      followUp: (message, runChild) => {
        this.runChild = runChild;
        return this.turn(message);
      },
      done: () => this.runtime.closeSession(this.sessionId),
    };
  }

  /** One prompt turn: push, prompt, process messages until the prompt response, pop. */
  private async turn(promptText: string): Promise<AsyncThinkReply> {
    const { runtime } = this;
    let text = "";
    let answered = false;
    this.turnOpen = true;
    runtime.track(this, true);
    runtime.redirect.send({ type: "PushThinker", thinker: this });
    const onAbort = () => this.abort(agentError(AgentCodes.cancelled, `the think at ${this.where} was cancelled`));
    this.signal.addEventListener("abort", onAbort, { once: true });
    if (this.signal.aborted) onAbort();
    const timers = new Timers(this, runtime.idleTimeoutMs, runtime.totalTimeoutMs);
    runtime.prompt(this.sessionId, [{ type: "text", text: promptText }]).then(
      (response) =>
        runtime.redirect.send({ type: "IncomingMessage", sessionId: this.sessionId, message: { kind: "stop", response } }),
      (error: unknown) =>
        runtime.redirect.send({ type: "IncomingMessage", sessionId: this.sessionId, message: { kind: "failed", error } }),
    );
    try {
      for (;;) {
        const message = await this.inbox.next();
        timers.activity();
        if (message.kind === "update") text += this.onUpdate(message.update);
        else if (message.kind === "do") {
          timers.pause();
          message.respond(await this.runDo(message.index));
          timers.resume();
        } else if (message.kind === "failed") throw await runtime.failure(message.error);
        else {
          answered = true;
          return this.finishTurn(message.response, text);
        }
      }
    } catch (error) {
      if (!this.inbox.failed) this.inbox.fail(error);
      if (!answered) runtime.cancelSession(this.sessionId);
      runtime.closeSession(this.sessionId);
      throw error;
    } finally {
      timers.clear();
      this.signal.removeEventListener("abort", onAbort);
      this.turnOpen = false;
      for (const pending of this.inbox.drain()) {
        if (pending.kind === "do") pending.respond(toolText("the think block was interrupted", true));
      }
      runtime.redirect.send({ type: "PopThinker", thinker: this });
      runtime.track(this, false);
    }
  }

  private finishTurn(response: PromptResponse, text: string): AsyncThinkReply {
    const stop = response.stopReason;
    if (stop === "end_turn") return this.reply(text);
    const known = STOP_ERRORS[stop];
    const code = known?.code ?? AgentCodes.requestFailed;
    const what = known?.text ?? `the agent stopped with an unknown stop reason ${JSON.stringify(stop)}`;
    throw agentError(code, `${what}${text.trim() ? `; it said: ${clip(text.trim())}` : ""}`);
  }

  private onUpdate(update: SessionUpdate): string {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") {
          this.context.emit({ type: "agent-text", thinkId: this.thinkId, text: update.content.text });
          return update.content.text;
        }
        return "";
      case "agent_thought_chunk":
        if (update.content.type === "text")
          this.context.emit({ type: "agent-thought", thinkId: this.thinkId, text: update.content.text });
        return "";
      case "tool_call":
        this.toolTitles.set(update.toolCallId, update.title);
        this.context.emit({
          type: "tool-call",
          thinkId: this.thinkId,
          toolCallId: update.toolCallId,
          title: update.title,
          status: update.status ?? "pending",
        });
        return "";
      case "tool_call_update":
        this.context.emit({
          type: "tool-call",
          thinkId: this.thinkId,
          toolCallId: update.toolCallId,
          title: update.title ?? this.toolTitles.get(update.toolCallId) ?? "",
          status: update.status ?? "in_progress",
        });
        return "";
      default:
        return "";
    }
  }

  /** The MCP tool callback: hand the invocation to the redirect actor (routes to the top). */
  private invokeDo(index: number): Promise<CallToolResult> {
    return new Promise((respond) =>
      this.runtime.redirect.send({
        type: "IncomingMessage",
        sessionId: this.sessionRef.id,
        message: { kind: "do", index, respond },
      }),
    );
  }

  private async runDo(index: number): Promise<CallToolResult> {
    const count = this.request.childCount;
    if (index >= count) {
      const valid = count === 0 ? "this prompt has no do blocks" : `valid numbers: ${range(count)}`;
      return toolText(`there is no do block ${index}; ${valid}`, true);
    }
    let result: ChildResult;
    try {
      result = await this.runChild(index);
    } catch (error) {
      result = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    return result.ok ? toolText(result.text) : toolText(`do block ${index} failed: ${result.error}`, true);
  }

  async release(): Promise<void> {
    await this.declaration?.release();
    this.declaration = null;
  }
}

/** Idle and total timers of a turn; idle time does not run while a `do` child runs. */
class Timers {
  private idle: NodeJS.Timeout | undefined;
  private total: NodeJS.Timeout | undefined;
  private paused = 0;

  constructor(
    private readonly handler: ThinkHandler,
    private readonly idleMs: number | undefined,
    totalMs: number | undefined,
  ) {
    if (totalMs) this.total = setTimeout(() => this.fire(`no answer within ${totalMs} ms`), totalMs);
    this.activity();
  }

  activity(): void {
    if (!this.idleMs || this.paused > 0) return;
    clearTimeout(this.idle);
    const ms = this.idleMs;
    this.idle = setTimeout(() => this.fire(`the agent was silent for ${ms} ms`), ms);
  }

  pause(): void {
    this.paused++;
    clearTimeout(this.idle);
  }

  resume(): void {
    this.paused--;
    this.activity();
  }

  clear(): void {
    clearTimeout(this.idle);
    clearTimeout(this.total);
  }

  private fire(why: string): void {
    this.handler.abort(agentError(AgentCodes.timeout, `the think at ${this.handler.where} timed out: ${why}`));
  }
}

function range(count: number): string {
  return count <= 10 ? [...Array(count).keys()].join(", ") : `0 to ${count - 1}`;
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
