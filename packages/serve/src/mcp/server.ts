/**
 * `patchwork mcp FILES…` (docs/mcp.md, docs/decisions/0014-mcp-server.md): an MCP server whose
 * tools are the `@skill`s and `@command`s of the given files. stdio by default, or Streamable
 * HTTP on 127.0.0.1. Every call is a run of its own (`callTool`); calls run concurrently, at most
 * `maxWorkers` at once; a folder's `.pw` files are watched, and a change of the tools is sent as
 * `notifications/tools/list_changed`.
 */
import { watch, type FSWatcher } from "node:fs";
import { dirname, resolve } from "node:path";
import { Server, type CallToolResult, type ServerContext, type Transport } from "@modelcontextprotocol/server";
import { RecyclingAgent, type Logger, type RunEvent } from "@patchwork/agent";
import { buildCatalog, pwFiles, type Catalog, type McpTool } from "./catalog.js";
import type { ProgressNote } from "./progress.js";
import { callTool, type ThinkAnswerer } from "./call.js";
import { startHttp, type HttpHandle } from "./http.js";
import type { SessionLimits } from "./sessions.js";
import { SamplingAgent } from "./sampling.js";
import { SharedAgent } from "../shared-agent.js";
import { guardedStdio } from "./stdio.js";
import { inspectCall } from "./inspect.js";

export interface McpServeOptions {
  /** `.pw` files and folders (a folder: the `.pw` files in it). */
  paths: string[];
  /** Where relative paths resolve and the skills run (default `process.cwd()`). */
  cwd?: string;
  /** The ACP agent command line that answers thinks; absent: MCP sampling when the client offers it, else no agent. */
  agent?: string;
  /** Most tool calls running at once, and most worker tasks of each (default 8). */
  maxWorkers?: number;
  /** Streamable HTTP on 127.0.0.1:`port` (0: any free port) instead of stdio; with `token`, requests need `Authorization: Bearer <token>`. */
  http?: { port: number; token?: string; sessions?: Partial<SessionLimits> };
  /** Watch the files and folders and send `tools/list_changed` (default true). */
  watch?: boolean;
  /** A transport to serve instead of stdio (tests). */
  transport?: Transport;
  env?: Record<string, string | undefined>;
  thinkIdleTimeoutMs?: number;
  /** Stop a call after this long (a tool error, as `run --timeout`). */
  timeoutMs?: number;
  /** The answer to the agent's permission requests for tools other than `do` (default deny). */
  permissions?: "allow" | "deny";
  /** An observer of each call's run (`patchwork mcp --verbose`), given the call's name `TOOL#N`: its events, then its end. */
  observeCall?: (call: string) => { event(event: RunEvent): void; end(): void };
  logger?: Logger;
}

export interface McpServerHandle {
  /** The HTTP endpoint (`http://127.0.0.1:PORT/mcp`), with `http`. */
  url?: string;
  /** The names of the tools served now. */
  toolNames(): string[];
  /** Resolves when the stdio connection closes (or `close()` is called). */
  closed: Promise<void>;
  /** Cancels the calls under way (their thinks, process groups and session directories) and stops serving. */
  close(): Promise<void>;
}

export const MCP_SERVE_NAME = "patchwork";
const DEFAULT_MAX_CALLS = 8;

/** Starts the server. Throws (a readable Error) when a path does not exist. */
export async function serveMcp(options: McpServeOptions): Promise<McpServerHandle> {
  const cwd = options.cwd ?? process.cwd();
  pwFiles(options.paths, cwd); // a missing path fails here, before anything is served
  const state = new ServeState(options, cwd);
  const inspect = (message: Record<string, unknown>) => inspectCall(message, () => state.catalog.tools);
  let http: HttpHandle | null = null;
  let closeResolve!: () => void;
  const closed = new Promise<void>((r) => (closeResolve = r));
  if (options.http) {
    const { port, token, sessions } = options.http;
    http = await startHttp({ port, token, create: () => state.newServer(), logger: options.logger, inspect, ...(sessions ? { sessions } : {}) });
  } else {
    const server = state.newServer(() => closeResolve());
    const transport = options.transport ?? guardedStdio(options.logger, inspect);
    await server.connect(transport);
  }
  const handle: McpServerHandle = {
    ...(http ? { url: http.url } : {}),
    toolNames: () => state.catalog.tools.map((t) => t.name),
    closed,
    close: async () => {
      await state.close();
      await http?.close();
      await Promise.all([...state.servers].map((s) => s.close().catch(() => undefined)));
      closeResolve();
    },
  };
  return handle;
}

/** What every connection shares: the catalog (rebuilt on change), the call slots, the connected servers. */
class ServeState {
  catalog: Catalog;
  readonly servers = new Set<Server>();
  private readonly watchers: FSWatcher[] = [];
  private rebuildTimer: NodeJS.Timeout | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly maxCalls: number;
  /** Aborted by close(): every call under way is cancelled. */
  private readonly stopping = new AbortController();
  private readonly calls = new Set<Promise<unknown>>();
  /** `--agent`: one process for all calls, started by the first call that runs (each call's thinks nest apart). */
  private readonly agent: SharedAgent | null;
  private callCount = 0;
  private callNumber = 0;

  constructor(
    private readonly options: McpServeOptions,
    private readonly cwd: string,
  ) {
    this.maxCalls = options.maxWorkers ?? DEFAULT_MAX_CALLS;
    const command = options.agent;
    this.agent = command
      ? new SharedAgent(() =>
          RecyclingAgent.start({
            command,
            cwd,
            ...(options.env ? { env: options.env } : {}),
            mcpTransport: "auto",
            permissions: { do: "allow", other: "deny" },
            ...(options.thinkIdleTimeoutMs !== undefined ? { thinkIdleTimeoutMs: options.thinkIdleTimeoutMs } : {}),
            ...(options.logger ? { logger: options.logger } : {}),
          }),
        )
      : null;
    this.catalog = this.build();
    if (options.watch !== false) this.watch();
  }

  private build(): Catalog {
    const catalog = buildCatalog(this.options.paths, this.cwd);
    for (const problem of catalog.problems) this.options.logger?.warn(`a file was left out:\n${problem}`);
    return catalog;
  }

  /** Watches the folders (a file's: its folder, as editors replace files when they save). */
  private watch(): void {
    const dirs = new Set<string>();
    for (const p of this.options.paths) {
      const full = resolve(this.cwd, p);
      const files = pwFiles([p], this.cwd);
      dirs.add(files.length === 1 && files[0] === full ? dirname(full) : full);
    }
    for (const dir of dirs) {
      try {
        const w = watch(dir, (_event, name) => {
          if (name === null || String(name).endsWith(".pw")) this.scheduleRebuild();
        });
        w.on("error", () => undefined);
        this.watchers.push(w);
      } catch (error) {
        this.options.logger?.warn(`cannot watch ${dir}: ${(error as Error).message}`);
      }
    }
  }

  private scheduleRebuild(): void {
    clearTimeout(this.rebuildTimer);
    this.rebuildTimer = setTimeout(() => this.rebuild(), 100);
  }

  private rebuild(): void {
    let next: Catalog;
    try {
      next = this.build();
    } catch (error) {
      this.options.logger?.warn(`cannot read the skills again: ${(error as Error).message}`);
      return;
    }
    const changed = JSON.stringify(listed(next.tools)) !== JSON.stringify(listed(this.catalog.tools));
    this.catalog = next;
    if (changed) for (const server of this.servers) void server.sendToolListChanged().catch(() => undefined);
  }

  /** Stops watching and cancels every call under way; resolves when they have ended. */
  async close(): Promise<void> {
    clearTimeout(this.rebuildTimer);
    for (const w of this.watchers) w.close();
    this.stopping.abort();
    await Promise.allSettled([...this.calls]);
    await this.agent?.close();
  }

  /** A server instance for one connection (stdio, or one HTTP session). */
  newServer(onclose?: () => void): Server {
    const server = new Server({ name: MCP_SERVE_NAME, version: "0.1.0" }, { capabilities: { tools: { listChanged: true } } });
    this.servers.add(server);
    server.onclose = () => {
      this.servers.delete(server);
      onclose?.();
    };
    // A client with no agent behind its calls (no --agent, no sampling) gets its thinks' prompts
    // back, not values of the declared types: a tool that may think declares no outputSchema then (docs/mcp.md).
    server.setRequestHandler("tools/list", async () => ({ tools: listed(this.catalog.tools, this.thinks(server)) }));
    server.setRequestHandler("tools/call", (request, ctx) => {
      const call = this.call(server, request.params.name, request.params.arguments ?? {}, ctx);
      this.calls.add(call);
      void call.finally(() => this.calls.delete(call)).catch(() => undefined);
      return call;
    });
    return server;
  }

  private async call(server: Server, name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> {
    const tool = this.catalog.tools.find((t) => t.name === name);
    if (!tool) {
      const names = this.catalog.tools.map((t) => t.name).join(", ");
      return { content: [{ type: "text", text: `there is no tool '${name}' (tools: ${names || "none"})` }], isError: true };
    }
    const signal = AbortSignal.any([ctx.mcpReq.signal, this.stopping.signal]);
    const observer = this.options.observeCall?.(`${tool.name}#${++this.callNumber}`);
    await this.slot(signal);
    const progress = progressSender(ctx);
    try {
      const result = await callTool({
        tool,
        arguments: args,
        answerer: this.answerer(server, ctx),
        signal,
        onProgress: progress.send,
        maxWorkers: this.maxCalls,
        cwd: this.cwd,
        ...(this.options.env ? { env: this.options.env } : {}),
        ...(this.options.thinkIdleTimeoutMs !== undefined ? { thinkIdleTimeoutMs: this.options.thinkIdleTimeoutMs } : {}),
        ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
        ...(this.options.permissions !== undefined ? { permissions: this.options.permissions } : {}),
        ...(observer ? { onEvent: (event: RunEvent) => observer.event(event) } : {}),
      });
      await progress.flushed();
      return result;
    } finally {
      observer?.end();
      this.release();
    }
  }

  /** Whether the calls of this connection's client have something to answer their thinks. */
  private thinks(server: Server): boolean {
    return this.agent !== null || server.getClientCapabilities()?.sampling !== undefined;
  }

  /** `--agent`, else the client's sampling (when it declared the capability), else no agent. */
  private answerer(server: Server, ctx: ServerContext): ThinkAnswerer {
    if (this.agent) return { agent: this.agent.thinker(`call${++this.callCount}`, this.cwd, { ahead: true }) };
    const sampling = server.getClientCapabilities()?.sampling;
    if (!sampling) return null;
    return {
      agent: new SamplingAgent({
        tools: sampling.tools !== undefined,
        sample: (params, { signal }) => ctx.mcpReq.requestSampling(params, { signal, timeout: 600_000, resetTimeoutOnProgress: true }),
      }),
    };
  }

  /** Waits for one of the `maxCalls` call slots (a cancelled call leaves the queue). */
  private slot(signal: AbortSignal): Promise<void> {
    if (this.running < this.maxCalls) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const go = () => {
        signal.removeEventListener("abort", leave);
        this.running++;
        resolve();
      };
      const leave = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        this.running++; // the run sees the aborted signal at once; release() gives the slot back
        resolve();
      };
      this.waiting.push(go);
      signal.addEventListener("abort", leave, { once: true });
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}

/** The tools as `tools/list` gives them (`answered`: their thinks have an agent; else a tool that thinks has no outputSchema). */
function listed(tools: McpTool[], answered = true) {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as { type: "object"; [k: string]: unknown },
    ...(t.output && (answered || !t.thinks) ? { outputSchema: t.output.schema as { type: "object"; [k: string]: unknown } } : {}),
  }));
}

/**
 * Progress notifications for a call whose request carried a progress token (else `send` does
 * nothing). They go out in order, and `flushed` resolves once all are written: the call's result
 * waits for it, as a notification after the result would be dropped by the client.
 */
function progressSender(ctx: ServerContext): { send?: (note: ProgressNote) => void; flushed: () => Promise<void> } {
  const token = ctx.mcpReq._meta?.progressToken;
  let chain = Promise.resolve();
  if (token === undefined) return { flushed: () => chain };
  return {
    send: (note) => {
      if (ctx.mcpReq.signal.aborted) return;
      const params = { progressToken: token, ...note };
      chain = chain.then(() => ctx.mcpReq.notify({ method: "notifications/progress", params })).catch(() => undefined);
    },
    flushed: () => chain,
  };
}
