// An editor for the proxy tests: the SDK's ACP client, in process, over in-memory streams,
// talking to `serveAcpProxy` whose successor is the scripted test agent (a real process).
import * as acp from "@agentclientprotocol/sdk/unstable";
import { serveAcpProxy, type AcpProxyOptions } from "../dist/index.js";
import { scratch, scriptedAgent } from "./helpers.js";

export interface PanelOptions {
  /** The editor's answer to permission requests (default: the first allow option). */
  permission?: (params: acp.RequestPermissionRequest) => acp.RequestPermissionResponse;
  /** The editor's fs/terminal capabilities and handlers. */
  fs?: { readTextFile?: (params: acp.ReadTextFileRequest) => acp.ReadTextFileResponse };
  proxy?: Partial<AcpProxyOptions>;
}

export class Panel {
  readonly updates = new Map<string, acp.SessionUpdate[]>();
  readonly permissions: acp.RequestPermissionRequest[] = [];
  /** Every update and permission request, in the order the editor got them. */
  readonly log: ({ sessionId: string; update: acp.SessionUpdate } | { sessionId: string; permission: acp.RequestPermissionRequest })[] = [];
  /** The proxy's warnings (protocol anomalies…). */
  readonly warnings: string[] = [];
  readonly stderr: string[] = [];
  connection!: acp.ClientConnection;
  server!: ReturnType<typeof serveAcpProxy>;

  static async open(script: object, options: PanelOptions = {}): Promise<Panel> {
    const panel = new Panel();
    const toProxy = new TransformStream<acp.AnyMessage>();
    const toEditor = new TransformStream<acp.AnyMessage>();
    panel.server = serveAcpProxy(
      { readable: toProxy.readable, writable: toEditor.writable },
      {
        agent: scriptedAgent(script),
        cwd: scratch,
        onAgentStderr: (text) => panel.stderr.push(text),
        logger: { warn: (message) => panel.warnings.push(message) },
        ...options.proxy,
      },
    );
    let app = acp
      .client({ name: "test-editor" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        const list = panel.updates.get(params.sessionId) ?? [];
        list.push(params.update);
        panel.updates.set(params.sessionId, list);
        panel.log.push({ sessionId: params.sessionId, update: params.update });
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        panel.permissions.push(params);
        panel.log.push({ sessionId: params.sessionId, permission: params });
        if (options.permission) return options.permission(params);
        const allow = params.options.find((o) => o.kind.startsWith("allow"));
        return { outcome: { outcome: "selected", optionId: allow!.optionId } };
      });
    if (options.fs?.readTextFile) app = app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => options.fs!.readTextFile!(params));
    panel.connection = app.connect({ readable: toEditor.readable, writable: toProxy.writable });
    panel.init = await panel.connection.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: Boolean(options.fs?.readTextFile), writeTextFile: false }, terminal: false },
    });
    return panel;
  }

  init!: acp.InitializeResponse;

  async newSession(cwd = scratch): Promise<string> {
    const { sessionId } = await this.connection.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    return sessionId;
  }

  /** Sends a text prompt; returns the response and the updates the turn produced. */
  async prompt(sessionId: string, text: string | acp.ContentBlock[]): Promise<{ response: acp.PromptResponse; updates: acp.SessionUpdate[]; text: string }> {
    const before = this.updates.get(sessionId)?.length ?? 0;
    const prompt = typeof text === "string" ? [{ type: "text" as const, text }] : text;
    const response = await this.connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt });
    await new Promise((r) => setTimeout(r, 60)); // notifications sent just before the response
    const updates = (this.updates.get(sessionId) ?? []).slice(before);
    return { response, updates, text: messageText(updates) };
  }

  cancel(sessionId: string): Promise<void> {
    return this.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  }

  async close(): Promise<void> {
    await this.server.close();
    this.connection.close();
  }
}

export function messageText(updates: acp.SessionUpdate[]): string {
  return updates
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");
}

export function toolCalls(updates: acp.SessionUpdate[]): acp.SessionUpdate[] {
  return updates.filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
}
