/**
 * `patchwork acp`: an ACP agent for the editor's agent panel that sits in front of another
 * ACP agent (the successor). A prompt that is Patchwork runs on the session's evaluator
 * thread (state kept across prompts), each think a session of the successor through the
 * same runtime as `patchwork run` (`AcpAgent`: redirect actor, think handlers, `do` server);
 * any other prompt goes to the successor's session for this editor session unchanged, and
 * everything it streams, asks (permissions) and requests (fs, terminal) goes to the editor.
 *
 * The successor is a `RecyclingAgent`, as for `patchwork run`: it is restarted between thinks
 * after N thinks (`restartAfterSessions`, default the agent's profile), never while a think or
 * a pass-through turn is under way; a panel session's pass-through conversation then starts
 * afresh in the new process, and the panel is told so at its next plain prompt. A successor
 * that died is started again by the next prompt, with the same notice.
 */
import { statSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { guardedLines } from "../guard/lines.js";
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  AgentCodes,
  EvaluatorSession,
  RecyclingAgent,
  toAgentError,
  type AcpAgent,
  type AcpAgentOptions,
  type AgentCommand,
  type AsyncAgent,
  type Logger,
  type McpTransport,
} from "@patchwork/agent";
import { classifyPrompt, COMMANDS } from "./prompts.js";
import type { PlanOptions } from "./plan.js";
import { FileCommands } from "./file-commands.js";
import { SharedAgent } from "../shared-agent.js";
import { PanelPrograms, type PanelSession } from "./programs.js";

export interface AcpProxyOptions {
  /** The successor agent's command line (a preset already resolved). */
  agent: AgentCommand;
  /** Working directory of the successor (sessions use the editor's `cwd`). Default `process.cwd()`. */
  cwd?: string;
  env?: Record<string, string | undefined>;
  mcpTransport?: McpTransport | "auto";
  thinkIdleTimeoutMs?: number;
  /**
   * Restart the successor between thinks after this many thinks (0 never), as `patchwork run
   * --restart-agent-after`. Default: the agent's profile (Gemini CLI, Codex: 50).
   */
  restartAfterSessions?: number;
  /** How long a cancelled program may take to stop before its thread (and state) goes. Default 1000 ms. */
  cancelGraceMs?: number;
  logger?: Logger;
  /** The successor's stderr (default: the logger at debug level). */
  onAgentStderr?: (text: string) => void;
  /** Module with `createSession` for the evaluator threads (tests). */
  evaluatorModule?: string;
  /**
   * Make the sessions of the panel's programs' thinks ahead of need (default true), as
   * `patchwork run` does (docs/agent.md, "Sessions made ahead"); false: every think waits for
   * its own `session/new` (the benchmark's baseline).
   */
  prepareSessions?: boolean;
  /** The plan of loops and task lists (proxy/plan.ts; `{enabled: false}`: none, the benchmark's baseline). */
  plan?: PlanOptions;
  /** Told each program's plan traffic (updates and bytes): the benchmark's figures. */
  onPlan?: (sent: { plans: number; bytes: number }) => void;
}

const PROXY_INFO = { name: "patchwork", title: "Patchwork", version: "0.1.0" };

interface ProxySession extends PanelSession {
  /** The editor's `session/new` (its `_meta` goes to the successor's chat session too). */
  request: acp.NewSessionRequest;
  mcpServers: acp.McpServer[];
  /** The successor's session for pass-through prompts and the process it lives in (opened again after a restart). */
  chat: { id: string; agent: AcpAgent } | null;
  /** `session/set_mode` and `session/set_config_option` the editor sent, applied again to a new chat session. */
  settings: Map<string, { method: string; params: object }>;
  /** The prompt under way: its cancel. */
  turn: { cancel(): void } | null;
  /** The `@command`s of the Patchwork files in the session's folder, offered as slash commands. */
  fileCommands: FileCommands;
  /** The successor's own slash commands (from its chat session), offered after ours. */
  successorCommands: acp.AvailableCommand[];
}

/**
 * An ACP stream over a process's stdin and stdout (what an editor starts `patchwork acp` with).
 * Every line passes the servers' checks first (`guardedLines`: size, depth, JSON-RPC shape); a
 * refused request is answered here and `log` says why.
 */
export function stdioStream(
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
  log: (message: string) => void = () => undefined,
): acp.Stream {
  const reply = (response: object) => void output.write(JSON.stringify(response) + "\n");
  return acp.ndJsonStream(
    Writable.toWeb(output as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(guardedLines(input as Readable, { reply, log })) as ReadableStream<Uint8Array>,
  );
}

/** Serves one editor connection; resolves when the editor closes it. */
export function serveAcpProxy(stream: acp.Stream, options: AcpProxyOptions): { closed: Promise<void>; close(): Promise<void> } {
  const proxy = new AcpProxy(options);
  const connection = proxy.app().connect(stream);
  proxy.bind(connection);
  const closed = connection.closed.then(() => proxy.close());
  return { closed, close: () => (connection.close(), proxy.close()) };
}

class AcpProxy {
  private connection: acp.AgentConnection | null = null;
  private readonly successor = new SharedAgent(() => this.startAgent());
  /** Processes of the successor replaced on purpose (after N thinks), by pid. */
  private readonly recycled = new Set<number>();
  private init: acp.InitializeRequest | null = null;
  private readonly sessions = new Map<string, ProxySession>();
  /** Context tokens and cost of each session's thinks so far (its `usage_update`). */
  private readonly programs: PanelPrograms;
  private closed = false;

  constructor(private readonly options: AcpProxyOptions) {
    this.programs = new PanelPrograms((sessionId, update) => this.update(sessionId, update), options.plan, options.onPlan);
  }

  bind(connection: acp.AgentConnection): void {
    this.connection = connection;
  }

  app(): acp.AgentApp {
    return acp
      .agent({ name: "patchwork" })
      .onRequest(acp.methods.agent.initialize, ({ params }) => this.initialize(params))
      .onRequest(acp.methods.agent.authenticate, async ({ params }) => {
        await (await this.agent()).use((agent) => agent.request(acp.methods.agent.authenticate, params));
        return {};
      })
      .onRequest(acp.methods.agent.session.new, ({ params }) => this.newSession(params))
      .onRequest(acp.methods.agent.session.load, ({ params }) => {
        throw acp.RequestError.sessionNotFound(params.sessionId);
      })
      .onRequest(acp.methods.agent.session.prompt, ({ params }) => this.prompt(params))
      .onNotification(acp.methods.agent.session.cancel, ({ params }) => this.sessions.get(params.sessionId)?.turn?.cancel())
      .onRequest(acp.methods.agent.session.close, async ({ params }) => {
        await this.closeSession(params.sessionId);
        return {};
      })
      .onRequest(acp.methods.agent.session.setMode, ({ params }) =>
        this.setting(params.sessionId, acp.methods.agent.session.setMode, "mode", params) as Promise<acp.SetSessionModeResponse>,
      )
      .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) =>
        this.setting(params.sessionId, acp.methods.agent.session.setConfigOption, `config:${params.configId}`, params) as Promise<acp.SetSessionConfigOptionResponse>,
      );
  }

  private async initialize(params: acp.InitializeRequest): Promise<acp.InitializeResponse> {
    this.init = params;
    const { agent } = await this.agent();
    const caps = agent.initializeResponse.agentCapabilities ?? {};
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        // Sessions live in this process (the interpreter state cannot be restored): no loadSession.
        loadSession: false,
        ...(caps.promptCapabilities ? { promptCapabilities: caps.promptCapabilities } : {}),
        ...(caps.mcpCapabilities ? { mcpCapabilities: caps.mcpCapabilities } : {}),
        sessionCapabilities: { close: {} },
      },
      authMethods: agent.initializeResponse.authMethods ?? [],
      agentInfo: PROXY_INFO,
    };
  }

  /** The successor, started (again, after it died) on demand. */
  private agent(): Promise<RecyclingAgent> {
    return this.successor.get();
  }

  private async startAgent(): Promise<RecyclingAgent> {
    const { options } = this;
    const editor = this.init?.clientCapabilities;
    const agentOptions: AcpAgentOptions = {
      command: options.agent,
      cwd: options.cwd,
      env: options.env,
      mcpTransport: options.mcpTransport ?? "auto",
      permissions: { do: "allow", other: "deny" },
      ...(options.prepareSessions === false ? { prepareSessions: false } : {}),
      thinkIdleTimeoutMs: options.thinkIdleTimeoutMs,
      ...(options.restartAfterSessions !== undefined ? { restartAfterSessions: options.restartAfterSessions } : {}),
      logger: options.logger,
      clientCapabilities: {
        fs: { readTextFile: editor?.fs?.readTextFile === true, writeTextFile: editor?.fs?.writeTextFile === true },
        terminal: editor?.terminal === true,
      },
      forwardClientRequest: (method, params) => this.forwardClientRequest(method, params),
      forwardPermission: (params) => this.forwardPermission(params),
      onEvent: (event) => {
        if (event.type === "agent-stderr") (options.onAgentStderr ?? ((t) => options.logger?.debug?.(t)))(event.text);
        else if (event.type === "agent-restarting") {
          if (event.pid !== null) this.recycled.add(event.pid);
          options.logger?.debug?.(`the agent (pid ${event.pid}) had ${event.sessions} think sessions (limit ${event.limit}): restarting it`);
        }
      },
    };
    try {
      return await RecyclingAgent.start(agentOptions);
    } catch (error) {
      const e = toAgentError(error, AgentCodes.spawnFailed);
      throw internalError(`the agent behind patchwork could not start: ${e.message}`);
    }
  }

  /**
   * What answers the thinks of a panel session's programs: the current successor (started
   * again after it died), each think's session in the panel session's directory. Each panel
   * session's thinks nest on a redirect stack of their own (as worker threads' do): two
   * sessions' programs thinking at once run side by side.
   */
  private thinkerFor(sessionId: string, cwd: string): AsyncAgent {
    // Each program's think blocks (counted by PanelPrograms) have their sessions made ahead
    // in the session's directory (SharedAgent), as for `patchwork run`.
    return this.successor.thinker(sessionId, cwd, { ahead: this.options.prepareSessions !== false });
  }

  private async newSession(params: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    if (typeof params.cwd !== "string" || !isAbsolute(params.cwd))
      throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path (got ${JSON.stringify(params.cwd)})`);
    if (!isDirectory(params.cwd)) throw acp.RequestError.invalidParams(undefined, `cwd ${params.cwd} is not a directory`);
    const id = `pw-${randomUUID()}`;
    const session: ProxySession = {
      id,
      request: params,
      cwd: params.cwd,
      mcpServers: params.mcpServers,
      chat: null,
      settings: new Map(),
      evaluator: new EvaluatorSession({
        agent: this.thinkerFor(id, params.cwd),
        cwd: params.cwd,
        env: this.options.env,
        evaluatorModule: this.options.evaluatorModule,
        cancelGraceMs: this.options.cancelGraceMs,
      }),
      turn: null,
      programs: 0,
      view: null,
      fileCommands: new FileCommands(params.cwd, new Set(COMMANDS.map((c) => c.name))),
      successorCommands: [],
    };
    // The successor's session now, so its modes and options reach the editor as without the proxy.
    const response = await (await this.agent()).use((agent) => this.openChat(session, agent));
    this.sessions.set(id, session);
    setImmediate(() => {
      session.fileCommands.scan();
      this.advertise(session);
    });
    const { sessionId: _, ...rest } = response;
    return { ...rest, sessionId: id };
  }

  private async openChat(session: ProxySession, agent: AcpAgent): Promise<acp.NewSessionResponse> {
    // The agent profile's session options (Claude Code: no bypass mode, which it refuses as
    // root), then what the editor asked for.
    const response = (await agent.request(acp.methods.agent.session.new, {
      ...agent.profile.newSessionExtras?.("chat"),
      ...session.request,
      cwd: session.cwd,
      mcpServers: session.mcpServers,
    })) as acp.NewSessionResponse;
    session.chat = { id: response.sessionId, agent };
    agent.attach(response.sessionId, (update) => this.chatUpdate(session, update));
    return response;
  }

  /**
   * Runs `fn` with the editor session's chat session at the successor, holding the successor
   * (no restart meanwhile). A chat session of a process that is gone (restarted after N thinks,
   * or dead) is opened again in the current one, with the editor's mode and options applied
   * again; `restarted` then says why the conversation starts afresh.
   */
  private async withChat<T>(session: ProxySession, fn: (chat: string, agent: AcpAgent, restarted: string | null) => Promise<T>): Promise<T> {
    return (await this.agent()).use(async (agent) => {
      const old = session.chat;
      if (old?.agent === agent) return fn(old.id, agent, null);
      await this.openChat(session, agent);
      for (const { method, params } of session.settings.values())
        await agent.request(method, { ...params, sessionId: session.chat!.id }).catch(() => undefined);
      const pid = old?.agent.process.pid;
      const why = !old ? null : pid !== undefined && this.recycled.has(pid) ? "it is restarted after a number of thinks, to give back the memory it keeps for them" : "it had stopped";
      return fn(session.chat!.id, agent, why);
    });
  }

  /** `session/set_mode`, `session/set_config_option`: sent to the chat session, and remembered for a new one. */
  private async setting(sessionId: string, method: string, key: string, params: { sessionId: string }): Promise<unknown> {
    const session = this.session(sessionId);
    const response = await this.withChat(session, (chat, agent) => agent.request(method, { ...params, sessionId: chat }));
    session.settings.set(key, { method, params: { ...params } });
    return response;
  }

  private chatUpdate(session: ProxySession, update: acp.SessionUpdate): void {
    // The successor's own commands are shown with ours.
    if (update.sessionUpdate === "available_commands_update") {
      session.successorCommands = update.availableCommands;
      return this.advertise(session);
    }
    this.update(session.id, update);
  }

  /** Looks at the session folder's files again; advertises their commands when they changed. */
  private rescan(session: ProxySession): void {
    if (session.fileCommands.scan()) this.advertise(session);
  }

  /** `available_commands_update`: ours, the session folder's files' `@command`s, then the successor's. */
  private advertise(session: ProxySession): void {
    const ours = [...COMMANDS, ...session.fileCommands.current.map((c) => c.command)];
    const theirs = session.successorCommands.filter((c) => !ours.some((o) => o.name === c.name));
    this.update(session.id, { sessionUpdate: "available_commands_update", availableCommands: [...ours, ...theirs] });
  }

  private session(sessionId: string): ProxySession {
    const session = this.sessions.get(sessionId);
    if (!session) throw acp.RequestError.sessionNotFound(sessionId);
    return session;
  }

  private async prompt(params: acp.PromptRequest): Promise<acp.PromptResponse> {
    const session = this.session(params.sessionId);
    if (session.turn)
      throw new acp.RequestError(-32600, "a prompt is already running in this session: wait for it or cancel it first");
    const kind = classifyPrompt(params.prompt, (name) => session.fileCommands.find(name));
    let cancelled = false;
    const controller = new AbortController();
    session.turn = {
      cancel: () => {
        cancelled = true;
        controller.abort();
      },
    };
    try {
      switch (kind.kind) {
        case "pass":
          return await this.passThrough(session, params, () => cancelled);
        case "refuse":
          return this.reply(session, kind.text);
        case "reset":
          await session.evaluator.reset();
          return this.reply(session, "The Patchwork session was reset: its variables, functions and imports are gone.");
        case "check":
          return this.programs.check(session, kind.file);
        case "program":
          return await this.programs.runPanelProgram(session, kind.source, controller.signal);
        case "run":
          return await this.programs.runFile(session, kind.file, kind.args, controller.signal, kind.entry);
        case "shell":
          return await this.programs.runShell(session, kind.command, controller.signal);
      }
    } finally {
      session.turn = null;
      // The program (or the agent) may have written a file of the folder: its commands may have changed.
      this.rescan(session);
    }
  }

  private async passThrough(session: ProxySession, params: acp.PromptRequest, cancelled: () => boolean): Promise<acp.PromptResponse> {
    // The successor is held for the whole turn: it is not restarted in the middle of one.
    let opened = false;
    try {
      return await this.withChat(session, async (chat, agent, restarted) => {
        opened = true;
        if (restarted)
          this.message(
            session,
            `*(The agent behind Patchwork was restarted (${restarted}), so this conversation starts afresh: it does not remember the earlier messages of this session. Patchwork variables and functions are kept.)*\n\n`,
          );
        return this.passTurn(session, params, cancelled, chat, agent);
      });
    } catch (error) {
      if (opened || error instanceof acp.RequestError) throw error;
      throw internalError(errorText(error));
    }
  }

  private async passTurn(
    session: ProxySession,
    params: acp.PromptRequest,
    cancelled: () => boolean,
    chat: string,
    agent: AcpAgent,
  ): Promise<acp.PromptResponse> {
    // Cancelled while the chat session was being opened: the prompt is not sent at all.
    if (cancelled()) return { stopReason: "cancelled" };
    session.turn = {
      cancel: () => void agent.notify(acp.methods.agent.session.cancel, { sessionId: chat }).catch(() => undefined),
    };
    let unsubscribe = () => undefined as unknown;
    const died = new Promise<never>((_, reject) => (unsubscribe = agent.process.onFault((fault) => reject(new Error(fault.message)))));
    died.catch(() => undefined);
    try {
      return (await Promise.race([agent.request(acp.methods.agent.session.prompt, { ...params, sessionId: chat }), died])) as acp.PromptResponse;
    } catch (error) {
      if (error instanceof acp.RequestError && agent.process.alive && !agent.process.fault) throw error;
      const fault = agent.process.fault ?? (await agent.process.settle());
      throw internalError(
        `the agent behind patchwork stopped during this turn (${fault?.message ?? errorText(error)}); the next prompt starts it again`,
      );
    } finally {
      unsubscribe();
    }
  }

  private reply(session: ProxySession, text: string): acp.PromptResponse {
    this.message(session, text);
    return { stopReason: "end_turn" };
  }

  private message(session: ProxySession, text: string): void {
    this.update(session.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  private update(sessionId: string, update: acp.SessionUpdate): void {
    this.connection?.client.notify(acp.methods.client.session.update, { sessionId, update }).catch(() => undefined);
  }

  /**
   * The editor session a successor session belongs to: its chat (in the live process; ids of
   * a process that is gone may come again), or a think of its running program.
   */
  private ownerOf(successorSession: string): ProxySession | undefined {
    for (const session of this.sessions.values()) {
      const { chat } = session;
      if (chat?.id === successorSession && chat.agent.process.alive) return session;
      if (session.view?.hasSession(successorSession)) return session;
    }
    return undefined;
  }

  private forwardPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> | undefined {
    const owner = this.ownerOf(params.sessionId);
    if (!owner || !this.connection) return undefined;
    // Inside a think, the tool call is the one nested under the think's (announced first if need be).
    const request = owner.view?.hasSession(params.sessionId) ? owner.view.permission(params, owner.id) : { ...params, sessionId: owner.id };
    return this.connection.client.request(acp.methods.client.session.requestPermission, request);
  }

  private async forwardClientRequest(method: string, params: unknown): Promise<unknown> {
    const sessionId = (params as { sessionId?: string }).sessionId ?? "";
    const owner = this.ownerOf(sessionId);
    if (!owner || !this.connection) throw acp.RequestError.sessionNotFound(sessionId);
    return this.connection.client.request(method, { ...(params as object), sessionId: owner.id });
  }

  private async closeSession(sessionId: string): Promise<void> {
    const session = this.session(sessionId);
    this.sessions.delete(sessionId);
    this.programs.forget(sessionId);
    session.turn?.cancel();
    await session.evaluator.close();
    const { chat } = session;
    if (chat && chat.agent.process.alive) {
      chat.agent.detach(chat.id);
      const caps = chat.agent.initializeResponse.agentCapabilities?.sessionCapabilities as { close?: unknown } | undefined;
      if (caps?.close) await chat.agent.request(acp.methods.agent.session.close, { sessionId: chat.id }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const session of this.sessions.values()) {
      session.turn?.cancel();
      await session.evaluator.close();
    }
    this.sessions.clear();
    await this.successor.close();
  }
}

/** A JSON-RPC internal error whose message is the text the user reads. */
function internalError(message: string): acp.RequestError {
  return new acp.RequestError(-32603, message);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
