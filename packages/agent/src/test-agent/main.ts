/**
 * `patchwork-test-agent`: a real ACP agent process (SDK `agent()` app over stdio) whose
 * behaviour comes from a JSON script. It connects to the MCP servers given in
 * `session/new` like a real agent does. Logs go to stderr only: stdout is the protocol.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { acpCaller } from "./acp-caller.js";
import type { DoClient } from "./mcp-client.js";
import { loadScript, ScriptCursor, type Script, type Step } from "./script.js";

interface Session {
  id: string;
  /** The directory `session/new` gave (`{{cwd}}` in a reply). */
  cwd: string;
  mcpServers: acp.McpServer[];
  cancel: AbortController | null;
}

/** `doAfterEnd` calls still in flight (`awaitLate` waits for them). */
const lateCalls = new Set<Promise<void>>();

/** The MCP client SDK loads only when a script calls `do` (keeps start-up fast). */
const mcpClient = () => import("./mcp-client.js");

let logFile: string | undefined;
const log = (message: string) => {
  process.stderr.write(`[test-agent] ${message}\n`);
  // Written before the answer goes out: a test reads it after the run, whatever was killed when.
  if (logFile) appendFileSync(logFile, `${message}\n`);
};

export function runTestAgentMain(argv: string[]): void {
  let script: Script;
  try {
    script = loadScript(argv);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  logFile = script.logFile;
  if (script.banner !== undefined) process.stdout.write(`${script.banner}\n`);
  const cursor = new ScriptCursor(script);
  const sessions = new Map<string, Session>();
  let sessionCount = 0;
  let sessionRequests = 0;
  let promptCount = 0;
  let firstPromptAt: number | null = null;

  const app = acp
    .agent({ name: "patchwork-test-agent" })
    .onNotification(acp.methods.agent.mcp.message, acpCaller.handleNotification)
    .onRequest(acp.methods.agent.initialize, async ({ params }) => {
      if (script.initializeDelayMs) await new Promise((r) => setTimeout(r, script.initializeDelayMs));
      switch (script.onInitialize) {
        case "crash":
          log("crashing at initialize");
          process.exit(3);
        case "exit":
          process.exit(0);
        case "hang":
          return new Promise<never>(() => undefined);
        case "garbage":
          process.stdout.write("this is not json\n");
          return new Promise<never>(() => undefined);
      }
      return {
        protocolVersion: script.protocolVersion ?? params.protocolVersion,
        agentCapabilities: {
          mcpCapabilities: { http: script.mcpHttp ?? true, acp: script.mcpAcp ?? false },
          ...(script.sessionClose === false ? {} : { sessionCapabilities: { close: {} } }),
        },
        agentInfo: { name: script.agentName ?? "patchwork-test-agent", version: "0.1.0" },
      };
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const nth = ++sessionRequests;
      log(`session requested: ${nth}`);
      if (script.sessionNewDelayMs) await new Promise((r) => setTimeout(r, script.sessionNewDelayMs));
      if (script.mcpServersDelayMs && params.mcpServers.length > 0) await new Promise((r) => setTimeout(r, script.mcpServersDelayMs));
      if (script.failSessionNew !== undefined) throw acp.RequestError.internalError({ details: script.failSessionNew });
      if (script.failSessionNewAt?.includes(nth)) {
        log(`session request ${nth} failed as scripted`);
        throw acp.RequestError.internalError({ details: `session/new ${nth} fails as scripted` });
      }
      const id = `test-session-${++sessionCount}`;
      log(`session created: ${id}`);
      if (params.mcpServers.length > 0) log(`mcp servers of ${id}: ${params.mcpServers.map((m) => m.name).join(", ")}`);
      sessions.set(id, { id, cwd: params.cwd, mcpServers: params.mcpServers, cancel: null });
      return { sessionId: id };
    })
    .onRequest(acp.methods.agent.session.close, ({ params }) => {
      log(`session closed: ${params.sessionId}`);
      sessions.delete(params.sessionId);
      return {};
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      log(`cancel received for ${params.sessionId}`);
      sessions.get(params.sessionId)?.cancel?.abort();
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      log(`prompt received: ${params.sessionId}`);
      const session = sessions.get(params.sessionId);
      if (!session) throw acp.RequestError.resourceNotFound(params.sessionId);
      const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
      if (script.logPrompts) log(`prompt text: ${JSON.stringify(text)}`);
      if (script.logPromptTimes) log(`prompt at: ${Date.now()}`);
      const nth = ++promptCount;
      firstPromptAt ??= Date.now();
      const outage = script.outage;
      if (outage && ((outage.prompts !== undefined && nth <= outage.prompts) || (outage.ms !== undefined && Date.now() - firstPromptAt < outage.ms))) {
        log(`prompt ${nth} fails: outage`);
        throw new acp.RequestError(-32603, `Internal error: ${outage.error}`, outage.data);
      }
      const cancel = new AbortController();
      session.cancel = cancel;
      const turn = new Turn(session, client, cancel.signal);
      try {
        const stopReason = await turn.play(cursor.pick(text).steps, text);
        return { stopReason, ...(turn.usage ? { usage: turn.usage } : {}) };
      } finally {
        session.cancel = null;
        await turn.closeMcp();
      }
    });

  const stream = acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    arrivals(Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>),
  );
  const connection = app.connect(stream);
  void connection.closed.then(() => process.exit(0));
}

/**
 * With a log file, each request and notification is logged as it arrives (`arrived: METHOD
 * [SESSION]`), in the order the client sent them: the SDK may run the handlers of messages
 * that arrive together in another order.
 */
function arrivals(input: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  if (!logFile) return input;
  const decoder = new TextDecoder();
  let pending = "";
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          try {
            const message = JSON.parse(line) as { method?: unknown; params?: { sessionId?: unknown } };
            if (typeof message.method !== "string") continue;
            const session = typeof message.params?.sessionId === "string" ? ` ${message.params.sessionId}` : "";
            appendFileSync(logFile!, `arrived: ${message.method}${session}\n`);
          } catch {
            // not JSON: the SDK reports it
          }
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

class Turn {
  private mcp: DoClient | null = null;
  private vars: Record<string, string> = { do: "", permission: "" };
  usage: acp.Usage | null = null;

  constructor(
    private readonly session: Session,
    private readonly client: acp.AgentContext,
    private readonly signal: AbortSignal,
  ) {}

  async play(steps: Step[], prompt: string): Promise<acp.StopReason> {
    this.vars.prompt = prompt;
    this.vars.cwd = this.session.cwd;
    this.vars.session = this.session.id;
    this.vars.pid = String(process.pid);
    for (const step of steps) {
      if (this.signal.aborted) return "cancelled";
      const stop = await this.step(step);
      if (stop) return stop;
    }
    return "end_turn";
  }

  private async step(step: Step): Promise<acp.StopReason | null> {
    if ("textFor" in step)
      await this.client.notify(acp.methods.client.session.update, {
        sessionId: step.textFor,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: this.fill(step.text) } },
      });
    else if ("text" in step) await this.chunk(this.fill(step.text), step.id);
    else if ("thought" in step) await this.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: step.thought } });
    else if ("reply" in step) {
      await this.chunk(this.fill(step.reply), step.id);
      return "end_turn";
    } else if ("update" in step) await this.update(step.update as acp.SessionUpdate, step.for);
    else if ("failedDo" in step) {
      const toolCallId = `do-${step.failedDo}-${Date.now()}`;
      await this.update({ ...doToolCall(toolCallId, step.failedDo), sessionUpdate: "tool_call", status: "pending" });
      const content = [{ type: "content" as const, content: { type: "text" as const, text: step.error } }];
      await this.update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed", content });
    } else if ("promptUsage" in step) {
      this.usage = step.promptUsage;
    } else if ("do" in step) {
      for (let i = 0; i < (step.repeat ?? 1); i++) await this.callDo(step.do, step.ask ?? false, step.echo ?? false);
    }
    else if ("permission" in step) {
      const { permission: title, name, meta, rawInput, toolCallId } = step;
      this.vars.permission = await this.askPermission({
        toolCallId: toolCallId ?? `perm-${Date.now()}`,
        title,
        ...(name !== undefined ? { name } : {}),
        ...(meta !== undefined ? { _meta: meta } : {}),
        ...(rawInput !== undefined ? { rawInput } : {}),
      });
    }
    else if ("readFile" in step) {
      try {
        const r = await this.client.request(acp.methods.client.fs.readTextFile, { sessionId: this.session.id, path: step.readFile });
        this.vars.file = r.content;
      } catch (error) {
        this.vars.file = `ERROR: ${error instanceof Error ? error.message : String(error)}`;
      }
    } else if ("toolCall" in step)
      await this.update({ sessionUpdate: "tool_call", toolCallId: `tc-${Date.now()}`, title: step.toolCall, status: "completed" });
    else if ("stop" in step) return step.stop;
    else if ("sleep" in step) await sleep(step.sleep, this.signal);
    else if ("fail" in step) throw new acp.RequestError(-32603, `Internal error: ${step.fail}`, step.data);
    else if ("hang" in step) {
      await new Promise<void>((resolve) => this.signal.addEventListener("abort", () => resolve(), { once: true }));
      return "cancelled";
    } else if ("crash" in step) {
      if (step.onceFile !== undefined) {
        if (existsSync(step.onceFile)) return null;
        writeFileSync(step.onceFile, `${process.pid}\n`);
      }
      log("crashing as scripted");
      process.kill(process.pid, "SIGKILL");
    } else if ("exit" in step) process.exit(step.exit);
    else if ("garbage" in step) process.stdout.write(`${step.garbage}\n`);
    else if ("doAfterEnd" in step) this.doAfterEnd(step.doAfterEnd, step.delayMs ?? 20);
    else if ("awaitLate" in step) await Promise.allSettled([...lateCalls]);
    else if ("spawn" in step) {
      const child = spawn("/bin/sh", ["-c", step.spawn], { stdio: "ignore" });
      log(`spawned ${child.pid}`);
      process.stderr.write(`[test-agent] child-pid ${child.pid}\n`);
    }
    return null;
  }

  private async callDo(number: number, ask: boolean, echo: boolean): Promise<void> {
    const toolCallId = `do-${number}-${Date.now()}`;
    await this.update({ ...doToolCall(toolCallId, number), sessionUpdate: "tool_call", status: "pending" });
    if (ask) {
      // Named like a real agent names an MCP tool: the structured `name`, not only the title.
      const answer = await this.askPermission(doToolCall(toolCallId, number));
      this.vars.permission = answer;
      if (answer !== "allow") {
        this.vars.do = `(do ${number} not permitted: ${answer})`;
        await this.update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
        return;
      }
    }
    const outcome = await this.doClient().then((c) => c.call(number));
    this.vars.do = outcome.isError ? `ERROR: ${outcome.text}` : outcome.text;
    await this.update({ sessionUpdate: "tool_call_update", toolCallId, status: outcome.isError ? "failed" : "completed" });
    if (echo) await this.chunk(this.vars.do);
  }

  private doAfterEnd(number: number, delayMs: number): void {
    const servers = this.session.mcpServers;
    const call = sleep(delayMs, new AbortController().signal)
      .then(async () => (await mcpClient()).connectDoServer(servers[0]!, this.client))
      .then(async (c) => {
        const outcome = await c.call(number);
        log(`late do(${number}) answered: ${outcome.isError ? "error" : "ok"}: ${outcome.text}`);
        await c.close();
      })
      .catch((error: unknown) => {
        log(`late do(${number}) failed: ${String(error)}`);
      })
      .finally(() => void lateCalls.delete(call));
    lateCalls.add(call);
  }

  private async askPermission(toolCall: acp.ToolCallUpdate): Promise<string> {
    const response = await this.client.request(acp.methods.client.session.requestPermission, {
      sessionId: this.session.id,
      toolCall,
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    return response.outcome.outcome === "selected" ? response.outcome.optionId : "cancelled";
  }

  private async doClient(): Promise<DoClient> {
    if (!this.mcp) {
      const server = this.session.mcpServers[0];
      if (!server) throw new Error("the client gave this session no MCP server");
      this.mcp = await (await mcpClient()).connectDoServer(server, this.client);
    }
    return this.mcp;
  }

  async closeMcp(): Promise<void> {
    const mcp = this.mcp;
    this.mcp = null;
    await mcp?.close().catch(() => undefined);
  }

  private fill(text: string): string {
    return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => this.vars[name] ?? whole);
  }

  private chunk(text: string, messageId?: string): Promise<void> {
    return this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, ...(messageId ? { messageId } : {}) });
  }

  private update(update: acp.SessionUpdate, sessionId = this.session.id): Promise<void> {
    return this.client.notify(acp.methods.client.session.update, { sessionId, update });
  }
}

/** A call of our do tool as agents announce it: structured name (ACP `name`, Claude's `_meta`) and raw input. */
function doToolCall(toolCallId: string, number: number) {
  const name = "mcp__patchwork__do";
  return { toolCallId, title: name, name, kind: "other" as const, rawInput: { number }, _meta: { claudeCode: { toolName: name } } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
