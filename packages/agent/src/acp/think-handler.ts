/**
 * One think handler task (`think_message` in the seeds): creates a session with our MCP
 * server, pushes itself on the redirect stack, prompts, processes its inbox (text chunks,
 * `do` invocations, the prompt response) until the turn ends, pops itself, and answers.
 * Follow-up turns (the typed-result repair) run in the same session.
 */
import type { ContentBlock, PromptResponse, SessionUpdate, ToolCall, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ChildResult, ThinkRequest } from "@patchwork/interpreter";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { AgentCodes, agentError, type AgentCode } from "../errors.js";
import { toolText } from "../mcp/do-server.js";
import type { McpDeclaration } from "../mcp/hub.js";
import type { AsyncRunChild, AsyncThinkReply, McpTransport, ThinkContext } from "../types.js";
import { Inbox, type PerSessionMessage, type RedirectActor, type Thinker } from "./redirect.js";
import { blockNumberOf, clip, TurnRecord, UsageMeter, type DoFailureKind } from "./turn-record.js";

/** What a handler needs from the runtime that spawned it. */
export interface HandlerRuntime {
  readonly redirect: RedirectActor;
  /** The MCP transport of the `do` server; null when the agent cannot take any we could use. */
  readonly transport: McpTransport | null;
  /** Why `transport` is null. */
  readonly transportProblem: string | null;
  /** Whether the agent connects to a session's MCP servers when the session starts (so one it never contacted was never offered). */
  readonly connectsMcpAtStart: boolean;
  /** Whether this agent has put a `messageId` on a message chunk (then id-less chunks are notices). */
  readonly usesMessageIds: boolean;
  sawMessageId(): void;
  /** Whether the tool call `toolCallId` the session announced is our `do` tool (by the agent profile). */
  isOurToolCall(sessionId: string, toolCallId: string): boolean;
  /** The raw input the session announced for a tool call (to read a `do` call's block number). */
  announcedInput(sessionId: string, toolCallId: string): unknown;
  readonly cwd: string;
  readonly idleTimeoutMs: number | undefined;
  readonly totalTimeoutMs: number | undefined;
  /**
   * A session for a new think, with its own `do` declaration (null without a transport): one
   * made ahead of time (`SessionsAhead`) or a new one. Its `do` calls
   * reach the redirect actor under its session id, so whichever handler pushes itself with
   * that id gets them. `cwd`: the session's directory (default the agent's).
   */
  openSession(request: ThinkRequest, worker: string, cwd?: string): Promise<OpenedSession>;
  /** The think has its session and is about to prompt: sessions its text foretells are made now. */
  sessionOpened(request: ThinkRequest, worker: string, cwd?: string): void;
  prompt(sessionId: string, prompt: ContentBlock[]): Promise<PromptResponse>;
  cancelSession(sessionId: string): void;
  /** Frees the agent's session (`session/close` where advertised); fire and forget. */
  closeSession(sessionId: string): void;
  /** The error a turn's answer says, for an agent that reports failures as its answer (`AgentProfile.answerIsError`); else null. */
  answerIsError(answer: string): string | null;
  /** Maps a failed request or a dead connection to an AgentError. */
  failure(error: unknown): Promise<Error>;
  /** Registers the handler while its turn may still receive messages. */
  track(handler: ThinkHandler, active: boolean): void;
}

/** A session ready for a think's turns. */
export interface OpenedSession {
  sessionId: string;
  declaration: McpDeclaration | null;
  /** Made ahead of need (`SessionsAhead`), not while the think waited. */
  ahead?: boolean;
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
  /** Tool call titles by id (updates usually omit the title). */
  private readonly toolTitles = new Map<string, string>();
  /** What the current turn said and did (its final answer, its `do` calls). */
  private record = new TurnRecord();
  private readonly usage = new UsageMeter();
  /** `do` children of this think running now (its turn waits for them). */
  private doDepth = 0;

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

  /** The evaluator thread of this think: its redirect stack. */
  get worker(): string {
    return this.context.worker ?? "main";
  }

  /** Whether the think is inside one of its `do` blocks (its session cannot be the one making a new call unless it announced it). */
  get inDo(): boolean {
    return this.doDepth > 0;
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
    if (runtime.transport === null && this.request.childCount > 0)
      throw agentError(AgentCodes.transport, `${runtime.transportProblem}: the do blocks of this think cannot run`);
    let ahead: boolean | undefined;
    try {
      ({ sessionId: this.sessionId, declaration: this.declaration, ahead } = await runtime.openSession(this.request, this.worker, this.context.cwd));
    } catch (error) {
      throw await runtime.failure(error);
    }
    this.context.emit({ type: "session", thinkId: this.thinkId, sessionId: this.sessionId, transport: runtime.transport, ...(ahead ? { ahead } : {}) });
    // The prompt goes first, then the sessions this think foretells: their `session/new` (and,
    // for Claude Code, the process each starts) never comes before the prompt at the agent. The
    // prompt request is queued within this task (the SDK checks it in microtasks), hence `setImmediate`.
    const turn = this.turn(this.request.prompt);
    setImmediate(() => runtime.sessionOpened(this.request, this.worker, this.context.cwd));
    return turn;
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
    let answered = false;
    this.record = new TurnRecord();
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
        if (message.kind === "update") this.onUpdate(message.update);
        else if (message.kind === "do") {
          timers.pause();
          this.doDepth++;
          try {
            message.respond(await this.runDo(message.index));
          } finally {
            this.doDepth--;
          }
          timers.resume();
        } else if (message.kind === "failed") throw await runtime.failure(message.error);
        else {
          answered = true;
          return this.finishTurn(message.response);
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

  private finishTurn(response: PromptResponse): AsyncThinkReply {
    this.usage.response(response);
    const size = this.usage.contextSize;
    this.context.emit({ type: "usage", thinkId: this.thinkId, usage: this.usage.take(), ...(size > 0 ? { contextSize: size } : {}) });
    const stop = response.stopReason;
    if (stop !== "end_turn") {
      const known = STOP_ERRORS[stop];
      const code = known?.code ?? AgentCodes.requestFailed;
      const what = known?.text ?? `the agent stopped with an unknown stop reason ${JSON.stringify(stop)}`;
      const said = this.record.allText().trim();
      throw agentError(code, `${what}${said ? `; it said: ${clip(said)}` : ""}`);
    }
    const said = this.runtime.answerIsError(this.record.answer());
    if (said !== null) throw agentError(AgentCodes.requestFailed, `the agent answered with an error: ${said}`);
    const { errors, recovered } = this.record.outcome();
    for (const failure of recovered) {
      const message = `${failure.reason}; the model then ran ${failure.index === null || failure.kind === "unknown-block" ? "a do block" : "it"} again successfully`;
      const { line, column } = this.request.span.start;
      this.context.emit({ type: "warning", thinkId: this.thinkId, code: FAILURE_CODES[failure.kind], message, fileName: this.request.fileName, line, column });
    }
    if (errors.length > 0) throw agentError(FAILURE_CODES[errors[0]!.kind], errors.map((f) => f.reason).join("; "));
    if (this.request.childCount > 0 && this.runtime.connectsMcpAtStart && this.declaration && !this.declaration.contacted)
      throw agentError(
        AgentCodes.doNotOffered,
        "the agent never offered the do tool to its model (it did not connect to Patchwork's MCP server), so no do block of this think could run",
      );
    return this.reply(this.record.answer());
  }

  private onUpdate(update: SessionUpdate): void {
    const thinkId = this.thinkId;
    switch (update.sessionUpdate) {
      case "agent_message_chunk": {
        if (update.content.type !== "text") return;
        const { text } = update.content;
        if (update.messageId) this.runtime.sawMessageId();
        if (this.record.text(text, update.messageId, this.runtime.usesMessageIds))
          this.context.emit({ type: "agent-notice", thinkId, severity: "info", text });
        else this.context.emit({ type: "agent-text", thinkId, text, messageId: update.messageId ?? null });
        return;
      }
      case "agent_thought_chunk":
        if (update.content.type === "text") this.context.emit({ type: "agent-thought", thinkId, text: update.content.text });
        return;
      case "notice":
        this.context.emit({ type: "agent-notice", thinkId, severity: update.severity, text: update.description ? `${update.title}: ${update.description}` : update.title });
        return;
      case "tool_call":
        this.record.toolCall();
        this.toolTitles.set(update.toolCallId, update.title);
        this.emitToolCall(update, update.title, update.status ?? "pending");
        return;
      case "tool_call_update":
        this.emitToolCall(update, update.title ?? this.toolTitles.get(update.toolCallId) ?? "", update.status ?? "in_progress");
        if (update.status === "failed" && this.runtime.isOurToolCall(this.sessionId, update.toolCallId)) {
          const index = blockNumberOf(update.rawInput ?? this.runtime.announcedInput(this.sessionId, update.toolCallId));
          this.record.toolFailed(update.toolCallId, index, toolCallText(update));
        }
        return;
      case "usage_update":
        this.usage.update(update);
        return;
      default:
        // available_commands_update, plan, current_mode_update, config_option_update,
        // session_info_update, user_message_chunk…: nothing a think's value depends on.
        return;
    }
  }

  private emitToolCall(update: ToolCall | ToolCallUpdate, title: string, status: string): void {
    this.context.emit({
      type: "tool-call",
      thinkId: this.thinkId,
      toolCallId: update.toolCallId,
      title,
      status,
      ...(this.runtime.isOurToolCall(this.sessionId, update.toolCallId) ? { ours: true } : {}),
      ...(update.kind ? { kind: update.kind } : {}),
      ...(update.content && update.content.length > 0 ? { content: update.content } : {}),
      ...(update.locations && update.locations.length > 0 ? { locations: update.locations } : {}),
      ...(update.rawInput !== undefined ? { rawInput: update.rawInput } : {}),
      ...(update.rawOutput !== undefined ? { rawOutput: update.rawOutput } : {}),
    });
  }

  /** A permission request for our `do` tool in this session was not allowed. */
  noteDenied(toolCallId: string, rawInput: unknown, decision: string): void {
    if (!this.turnOpen) return;
    this.record.denied(toolCallId, blockNumberOf(rawInput ?? this.runtime.announcedInput(this.sessionId, toolCallId)), decision);
  }

  private async runDo(index: number): Promise<CallToolResult> {
    this.record.toolCall();
    let result: ChildResult;
    try {
      result = await this.runChild(index);
    } catch (error) {
      result = { ok: false, error: `do block ${index} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    // The evaluator words the error (it names the block); it goes to the model as is.
    if (result.ok) this.record.ran(index, { ok: true });
    else this.record.ran(index, { ok: false, error: result.error, unknown: index >= this.request.childCount });
    return result.ok ? toolText(result.text) : toolText(result.error, true);
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

const FAILURE_CODES: Record<DoFailureKind, AgentCode> = {
  denied: AgentCodes.doDenied,
  failed: AgentCodes.doFailed,
  "agent-failed": AgentCodes.doFailed,
  "unknown-block": AgentCodes.doUnknownBlock,
};

/** The text content of a tool call update (what the agent says about a failure), or its raw output. */
function toolCallText(update: ToolCallUpdate): string {
  const texts = (update.content ?? []).flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : []));
  if (texts.length > 0) return texts.join(" ").trim();
  const raw = update.rawOutput as { message?: unknown } | string | null | undefined;
  // Copilot CLI: `{message, code}`.
  return typeof raw === "string" ? raw : typeof raw?.message === "string" ? raw.message : "";
}
