/**
 * The ACP client runtime (the seeds' client loop): spawns the agent in its own process
 * group, `initialize`s it, and answers each think with a think handler task. Implements
 * `AsyncAgent`, so `runWithAgent` drives it from the evaluator thread.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { ChildResult, ThinkRequest } from "@patchwork/interpreter";
import type { Diagnostic } from "@patchwork/parser";
import { AgentCodes, agentError, toAgentError } from "../errors.js";
import { McpHub } from "../mcp/hub.js";
import { toolText } from "../mcp/do-server.js";
import type {
  AgentEvent,
  AsyncAgent,
  AsyncRunChild,
  AsyncThinkReply,
  SessionHint,
  McpTransport,
  ThinkContext,
} from "../types.js";
import { AgentProcess } from "./process.js";
import type { AcpAgentOptions } from "./agent-options.js";
import { CLIENT_REQUESTS, abandonedWhen, chooseTransport, initialize } from "./initialize.js";
import { PermissionDesk, ToolCallLedger } from "./permissions.js";
import { RedirectActor, type PerSessionMessage } from "./redirect.js";
import { ThinkHandler, type HandlerRuntime, type OpenedSession } from "./think-handler.js";
import { DEFAULT_AHEAD, SessionsAhead } from "./sessions-ahead.js";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { isOurAnnouncedCall, isOurDoTool, profileFor, type AgentProfile } from "./profiles/index.js";
import { SharedDoEndpoints } from "./shared-do.js";
import { MCP_SERVER_NAME } from "../mcp/do-server.js";

export type { AcpAgentOptions };

export class AcpAgent implements AsyncAgent {
  readonly redirect: RedirectActor;
  /** The `do` server's transport; null when the agent cannot take the one asked for (thinks with `do` blocks then fail). */
  readonly transport: McpTransport | null;
  readonly transportProblem: string | null;
  /** Set once the agent puts a `messageId` on a message chunk. */
  private usesMessageIds = false;
  /** Errors noticed outside any think (a `do` after its turn ended), positioned at the think. */
  readonly diagnostics: Diagnostic[] = [];
  private readonly active = new Set<ThinkHandler>();
  /** Sessions that are not thinks (a proxy's pass-through chat): their updates go to a listener. */
  private readonly attached = new Map<string, (update: acp.SessionUpdate) => void>();
  private readonly ended = new Map<string, ThinkHandler>();
  /** `session/prompt` requests still unanswered (cancelled turns answer `cancelled`). */
  private readonly pendingPrompts = new Set<Promise<unknown>>();
  private closed = false;
  /** `session/close` requests under way (a closing runtime lets them finish, briefly). */
  private readonly closing = new Set<Promise<void>>();
  /** What every think handler gets from this runtime (built once: its closures are per runtime). */
  private runtime: HandlerRuntime | null = null;
  /** Thinks that have taken a session of this process. */
  private thinksOpened = 0;
  /** The `do` server's first requests have been made ahead (`prepare`). */
  private warmed = false;
  /** Sessions made ahead of need (see `openSession`). */
  private readonly ahead: SessionsAhead;
  /** What this particular agent needs beyond plain ACP (chosen by its `agentInfo.name`). */
  readonly profile: AgentProfile;
  /** Working directory of the agent and of every session. */
  private readonly cwd: string;
  /** One `do` endpoint per directory, for an agent with one MCP registry per directory (`mcpScope`). */
  private readonly shared: SharedDoEndpoints | null;

  private constructor(
    private readonly options: AcpAgentOptions,
    readonly process: AgentProcess,
    private readonly connection: acp.ClientConnection,
    private readonly hub: McpHub,
    private readonly desk: PermissionDesk,
    private readonly ledger: ToolCallLedger,
    readonly initializeResponse: acp.InitializeResponse,
    transport: { transport: McpTransport | null; problem: string | null },
    redirect: RedirectActor,
  ) {
    this.transport = transport.transport;
    this.transportProblem = transport.problem;
    this.redirect = redirect;
    this.profile = profileFor(initializeResponse);
    this.cwd = options.cwd ?? globalThis.process.cwd();
    this.shared = this.profile.mcpScope === "directory" && this.transport !== null ? this.sharedEndpoints(this.transport) : null;
    const limits = options.prepareSessions === false ? { total: 0, perWorker: 0 } : (options.sessionsAhead ?? this.profile.sessionsAhead ?? DEFAULT_AHEAD);
    this.ahead = new SessionsAhead(limits, {
      create: (cwd) => this.createSession(cwd),
      discard: (session) => this.discard(session),
      room: () => this.roomAhead(),
      made: (reason, worker) => options.onEvent?.({ type: "session-ahead", reason, worker }),
    });
  }

  private sharedEndpoints(transport: McpTransport): SharedDoEndpoints {
    return new SharedDoEndpoints({
      ledger: this.ledger,
      declare: (call) => this.hub.declare(transport, call),
      activeSessions: () => [...this.active].map((handler) => ({ sessionId: handler.sessionId, inDo: handler.inDo })),
      isOurs: (call) => isOurAnnouncedCall(this.profile, call, MCP_SERVER_NAME),
      route: (sessionId, index) =>
        new Promise<CallToolResult>((respond) =>
          this.redirect.send({ type: "IncomingMessage", sessionId, message: { kind: "do", index, respond } }),
        ),
    });
  }

  /** Spawns the agent and runs `initialize`; rejects with an AgentError (PW4001–PW4003, PW4012). */
  static async start(options: AcpAgentOptions): Promise<AcpAgent> {
    const cwd = options.cwd ?? globalThis.process.cwd();
    const emit = (event: AgentEvent) => options.onEvent?.(event);
    const onStderr = (text: string) => emit({ type: "agent-stderr", text });
    // A process spawned early (the CLI starts the agent before it loads this runtime) runs `options.command` already.
    const child = options.process ?? new AgentProcess(options.command, { cwd, env: options.env, onStderr });
    if (options.process) child.listenStderr(onStderr);
    child.onNoise((message) => emit({ type: "anomaly", code: AgentCodes.anomaly, message }));
    const hub = new McpHub((error) => options.logger?.debug?.(`mcp: ${error.message}`));
    let self: AcpAgent | null = null;
    const ledger = new ToolCallLedger();
    const desk = new PermissionDesk({
      policy: options.permissions,
      askPermission: options.askPermission,
      // Before `initialize` has answered there is no profile: nothing is ours yet.
      isOurDoTool: (params) =>
        self !== null &&
        isOurDoTool(
          self.profile,
          { toolCall: params.toolCall, requestMeta: params._meta, announced: ledger.lookup(params.sessionId, params.toolCall.toolCallId) },
          MCP_SERVER_NAME,
        ),
      onDecision: (q, decision) => {
        const handler = self?.handlerOf(q.sessionId);
        emit({ type: "permission", thinkId: handler?.thinkId ?? null, title: q.title, decision });
        if (q.isDoTool && decision !== "allow") handler?.noteDenied(q.toolCallId, q.rawInput, decision);
      },
    });
    const redirect = new RedirectActor({
      anomaly: (message) => {
        options.logger?.warn(message);
        emit({ type: "anomaly", code: AgentCodes.anomaly, message });
      },
      orphan: (sessionId, message) => self?.orphan(sessionId, message),
    });
    const app = acp
      .client({ name: "patchwork" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        const listener = self?.attached.get(params.sessionId);
        if (listener) return listener(params.update);
        ledger.note(params.sessionId, params.update);
        redirect.send({
          type: "IncomingMessage",
          sessionId: params.sessionId,
          message: { kind: "update", update: params.update },
        });
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        const forward = self?.attached.has(params.sessionId) || !desk.isOurDo(params);
        return (forward ? options.forwardPermission?.(params) : undefined) ?? desk.handle(params);
      })
      .onRequest(acp.methods.client.mcp.message, hub.acpProvider.handleRequest);
    const forwardClient = options.forwardClientRequest;
    if (forwardClient) {
      for (const method of CLIENT_REQUESTS) app.onRequest(method, (({ params }: { params: unknown }) => forwardClient(method, params)) as never);
    }
    const connection = app.connect(child.stream);
    hub.bindAcp(connection.agent);
    const abandoned = abandonedWhen(options.startSignal);
    try {
      const init = await Promise.race([
        initialize(child, connection, options.initializeTimeoutMs ?? 30_000, options.clientCapabilities),
        abandoned.promise,
      ]);
      const transport = chooseTransport(options.mcpTransport ?? "auto", init);
      self = new AcpAgent(options, child, connection, hub, desk, ledger, init, transport, redirect);
      child.onFault((fault) => self?.failAll(agentError(fault.code, fault.message)));
      emit({
        type: "agent-started",
        pid: child.pid!,
        agentName: init.agentInfo?.name ?? null,
        protocolVersion: init.protocolVersion,
        transport: transport.transport,
      });
      return self;
    } catch (error) {
      connection.close();
      await child.kill();
      await hub.close();
      throw error;
    } finally {
      abandoned.dispose();
    }
  }

  async think(
    request: ThinkRequest,
    runChild: AsyncRunChild,
    signal: AbortSignal,
    context: ThinkContext,
  ): Promise<AsyncThinkReply> {
    if (this.closed) throw agentError(AgentCodes.cancelled, "the agent runtime is closed");
    if (this.process.fault) throw agentError(this.process.fault.code, this.process.fault.message);
    this.runtime ??= this.handlerRuntime();
    const handler = new ThinkHandler(this.runtime, request, runChild, signal, context);
    return handler.run();
  }

  /**
   * What the program's text says before it runs (`SessionHint`): a program that may think gets
   * its first think's session made now, while the program starts.
   */
  prepare(hint: SessionHint): void {
    if (this.closed || !this.process.alive) return;
    this.ahead.start(hint.thinks, hint.cwd ?? this.cwd);
    // An agent that connects to the `do` server as each session starts (Claude Code) makes its
    // first request just as its first session is ready: the server's own first-request work is
    // done now instead, while the agent starts (mcp/warm.ts). Once, after the session requests.
    if (!this.warmed && this.transport === "http" && this.profile.connectsMcpAtSessionStart && this.ahead.count > 0) {
      this.warmed = true;
      setImmediate(() => void this.hub.warm());
    }
  }

  /** Sessions made ahead and not taken (yet). */
  get sparesReady(): number {
    return this.ahead.count;
  }

  /** How many thinks have had a session of this agent process so far. */
  get sessionsUsed(): number {
    return this.thinksOpened;
  }

  /**
   * Thinks after which this process is to be replaced between thinks (`RecyclingAgent`), 0
   * never: the option, else the profile's. No spare session is made past it.
   */
  get restartAfterSessions(): number {
    const limit = this.options.restartAfterSessions ?? this.profile.restartAfterSessions ?? 0;
    return Number.isFinite(limit) && limit > 0 ? Math.floor(limit) : 0;
  }

  /** True when no think of this agent is under way (no turn, no unanswered prompt). */
  get idle(): boolean {
    return this.active.size === 0 && this.pendingPrompts.size === 0;
  }

  /** Cancels every active turn (`session/cancel`), answers pending permissions `cancelled`. */
  cancel(reason = "the run was cancelled"): void {
    this.desk.cancelAll();
    this.failAll(agentError(AgentCodes.cancelled, reason));
  }

  /** Kills the agent's process group and stops the MCP servers. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Sessions made ahead and never taken are closed at the agent first (a process each for
    // Claude Code), while the last thinks' own closes finish.
    await Promise.all([this.ahead.closeAll(CLOSE_SPARES_MS), settledWithin([...this.closing], CLOSE_SPARES_MS)]);
    this.desk.cancelAll();
    this.failAll(agentError(AgentCodes.cancelled, "the agent runtime was closed"));
    if (this.pendingPrompts.size > 0 && this.process.alive) {
      // Give cancelled turns a moment to answer `cancelled`, as the protocol expects.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.pendingPrompts]), new Promise((r) => (timer = setTimeout(r, 250)))]);
      clearTimeout(timer);
    }
    this.connection.close();
    await this.process.kill();
    await this.hub.close();
  }

  private failAll(error: Error): void {
    for (const handler of this.active) {
      if (handler.sessionId) this.cancelSession(handler.sessionId);
      handler.abort(error);
    }
  }

  private cancelSession(sessionId: string): void {
    if (!this.process.alive) return;
    this.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => undefined);
  }

  /** `session/close` (where advertised) once a think needs its session no more: Claude Code keeps a process per session. */
  private closeSession(sessionId: string): void {
    if (this.closed) return;
    const closing = this.sessionClose(sessionId);
    this.closing.add(closing);
    void closing.then(() => this.closing.delete(closing));
  }

  /** `session/close` and the profile's clean-up; resolves when done (or not possible). */
  private async sessionClose(sessionId: string): Promise<void> {
    const caps = this.initializeResponse.agentCapabilities?.sessionCapabilities as { close?: unknown } | undefined;
    if (!caps?.close || !this.process.alive) return;
    try {
      await this.connection.agent.request(acp.methods.agent.session.close, { sessionId });
      await this.profile.afterCloseSession?.({ sessionId, request: (method, params) => this.request(method, params) });
    } catch {
      // The agent's answer changes nothing: the session is not used again.
    }
  }

  /** A request to the agent (a profile's `session/set_mode`, a proxy's forwarded requests…). */
  request(method: string, params: unknown): Promise<unknown> {
    return this.connection.agent.request(method as never, params as never);
  }

  /** A notification to the agent (a proxy's `session/cancel`). */
  notify(method: string, params: unknown): Promise<void> {
    return this.connection.agent.notify(method as never, params as never);
  }

  /** Routes a session's updates (and permission requests, to `forwardPermission`) outside the think machinery. */
  attach(sessionId: string, listener: (update: acp.SessionUpdate) => void): void {
    this.attached.set(sessionId, listener);
  }

  detach(sessionId: string): void {
    this.attached.delete(sessionId);
  }

  private handlerOf(sessionId: string): ThinkHandler | undefined {
    for (const handler of this.active) if (handler.sessionId === sessionId) return handler;
    return undefined;
  }

  /** A message for a session with no active turn: a late `do` is an error at that think. */
  private orphan(sessionId: string, message: PerSessionMessage): void {
    if (message.kind !== "do") return;
    const handler = this.ended.get(sessionId);
    const where = handler ? ` at ${handler.where}` : "";
    const text = `the agent called do(${message.index}) after the turn of the think${where} had ended`;
    message.respond(toolText(`${text}; its do blocks cannot run any more`, true));
    this.diagnostics.push({
      code: AgentCodes.doAfterEnd,
      severity: "error",
      message: text,
      span: handler?.request.span ?? { start: { offset: 0, line: 0, column: 0 }, end: { offset: 0, line: 0, column: 0 } },
      fileName: handler?.request.fileName,
    });
    this.options.onEvent?.({ type: "anomaly", code: AgentCodes.doAfterEnd, message: text });
  }

  private handlerRuntime(): HandlerRuntime {
    const self = this;
    return {
      redirect: this.redirect,
      transport: this.transport,
      transportProblem: this.transportProblem,
      cwd: this.cwd,
      connectsMcpAtStart: this.profile.connectsMcpAtSessionStart === true,
      get usesMessageIds() {
        return self.usesMessageIds;
      },
      sawMessageId: () => void (self.usesMessageIds = true),
      isOurToolCall: (sessionId, toolCallId) => {
        const toolCall = self.ledger.lookup(sessionId, toolCallId);
        return toolCall !== undefined && isOurAnnouncedCall(self.profile, toolCall, MCP_SERVER_NAME);
      },
      announcedInput: (sessionId, toolCallId) => self.ledger.lookup(sessionId, toolCallId)?.rawInput,
      idleTimeoutMs: this.options.thinkIdleTimeoutMs,
      totalTimeoutMs: this.options.thinkTimeoutMs,
      openSession: (request, worker, cwd) => self.openSession(request, worker, cwd ?? self.cwd),
      sessionOpened: (request, worker, cwd) => self.ahead.afterOpen(request, cwd ?? self.cwd, worker),
      prompt(sessionId, prompt) {
        const request = self.connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt });
        self.pendingPrompts.add(request);
        const forget = () => void self.pendingPrompts.delete(request);
        request.then(forget, forget);
        return request;
      },
      cancelSession: (sessionId) => self.cancelSession(sessionId),
      closeSession: (sessionId) => self.closeSession(sessionId),
      failure: (error) => self.failure(error),
      track(handler, active) {
        if (active) {
          self.active.add(handler);
          self.ended.delete(handler.sessionId);
        } else {
          self.active.delete(handler);
          self.ledger.forget(handler.sessionId);
          // Remember recently ended sessions to name them when a late `do` arrives.
          self.ended.set(handler.sessionId, handler);
          // Their MCP declarations stay valid until evicted, so a late `do` is recognised.
          if (self.ended.size > 64) {
            const [sessionId, evicted] = self.ended.entries().next().value!;
            self.ended.delete(sessionId);
            void evicted.release();
          }
        }
      },
    };
  }

  /**
   * A session for a think, in directory `cwd`: one made ahead for it (`SessionsAhead`) or a
   * new one. Once the think has it (`sessionOpened`), the sessions its text foretells are made
   * while it runs (its nested thinks, its loop's next iteration); none for a think that will
   * get a new process (`restartAfterSessions`).
   */
  private async openSession(request: ThinkRequest, worker: string, cwd: string): Promise<OpenedSession> {
    this.thinksOpened++;
    const ready = this.ahead.take(cwd, worker);
    // A spare that failed (the agent died meanwhile…) is replaced by a new session, which reports the cause.
    return ready ?? this.createSession(cwd);
  }

  /** How many more sessions may be made ahead: none past the restart limit or once closed. */
  private roomAhead(): number {
    if (this.closed || !this.process.alive) return 0;
    const limit = this.restartAfterSessions;
    return limit > 0 ? Math.max(0, limit - this.thinksOpened) : Number.POSITIVE_INFINITY;
  }

  /** A spare session no think will take: forgotten, closed at the agent, its `do` declaration released. */
  private async discard(session: OpenedSession): Promise<void> {
    this.redirect.forget(session.sessionId);
    await this.sessionClose(session.sessionId);
    await session.declaration?.release();
  }

  /**
   * `session/new` with a fresh `do` declaration, then the profile's set-up (mode…). A session
   * of a directory whose shared endpoint another `session/new` names (`mcpScope`) is ready once
   * that one has been answered; if it failed, this session (without the tool) is closed and
   * made again once, naming the endpoint itself.
   */
  private async createSession(cwd: string, again = false): Promise<OpenedSession> {
    const ref = { id: "" };
    // The `do` tool of this session goes to the redirect actor under its id: to whichever
    // handler has pushed itself with that session (or, if none, to the orphan rule).
    const routeDo = (index: number) =>
      new Promise<CallToolResult>((respond) =>
        this.redirect.send({ type: "IncomingMessage", sessionId: ref.id, message: { kind: "do", index, respond } }),
      );
    const { declaration, servers, registered, settle } = await this.declareFor(cwd, routeDo);
    try {
      const response = await this.connection.agent.request(acp.methods.agent.session.new, {
        ...this.profile.newSessionExtras?.("think"),
        cwd,
        mcpServers: servers,
      }).catch((error: unknown) => {
        if (servers.length > 0) this.shared?.forget(cwd);
        throw error;
      });
      settle?.(true);
      ref.id = response.sessionId;
      // Until a handler pushes itself, what the agent says about this session waits for it
      // (Codex answers session/set_mode with mode and config updates).
      this.redirect.expect(response.sessionId);
      try {
        await this.profile.afterNewSession?.({
          sessionId: response.sessionId,
          response,
          request: (method, params) => this.request(method, params),
        });
      } catch (error) {
        this.redirect.forget(response.sessionId);
        throw error;
      }
      if (settle === null && registered !== null && !(await registered) && !again) {
        await this.discard({ sessionId: response.sessionId, declaration });
        return this.createSession(cwd, true);
      }
      return { sessionId: response.sessionId, declaration };
    } catch (error) {
      await declaration?.release();
      throw error;
    }
  }

  /** The `do` declaration of a new session and the MCP servers its `session/new` names. */
  private async declareFor(cwd: string, routeDo: (index: number) => Promise<CallToolResult>) {
    if (this.shared) return this.shared.forSession(cwd);
    const declaration = this.transport !== null ? await this.hub.declare(this.transport, routeDo) : null;
    return { declaration, servers: declaration ? [declaration.server] : [], registered: null, settle: null };
  }

  private async failure(error: unknown): Promise<Error> {
    if (!this.process.fault && (this.connection.signal.aborted || !this.process.alive)) await this.process.settle();
    if (this.process.fault) return agentError(this.process.fault.code, this.process.fault.message);
    if (error instanceof acp.RequestError || (error as { code?: unknown })?.code !== undefined) {
      const e = error as { message?: string; code?: unknown; data?: unknown };
      if (typeof e.code === "string" && e.code.startsWith("PW")) return toAgentError(error);
      const data = e.data as { details?: unknown } | string | undefined;
      const details = typeof data === "string" ? data : typeof data?.details === "string" ? data.details : "";
      const message = `${e.message ?? String(error)}${details ? ` (${details})` : ""}`;
      return agentError(AgentCodes.requestFailed, `the agent answered with an error: ${message}${this.process.stderrSuffix()}`);
    }
    return toAgentError(error, AgentCodes.requestFailed);
  }
}

/** The longest a closing runtime waits for its unused spare sessions to close. */
const CLOSE_SPARES_MS = 500;

/** Waits for these promises to settle, at most `ms`. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** Spawns an ACP agent and initializes it (same as `AcpAgent.start`). */
export function spawnAcpAgent(options: AcpAgentOptions): Promise<AcpAgent> {
  return AcpAgent.start(options);
}

export type { ChildResult };
