/**
 * How the test agent reaches the MCP servers of a session, like a real agent: HTTP
 * (Streamable HTTP with the declared headers), stdio (spawn the declared command), or
 * acp (MCP-over-ACP through the client connection).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { AgentContext, McpServer } from "@agentclientprotocol/sdk/unstable";
import { acpCaller } from "./acp-caller.js";

export interface ToolOutcome {
  text: string;
  isError: boolean;
}

export interface DoClient {
  call(number: number): Promise<ToolOutcome>;
  close(): Promise<void>;
}


export async function connectDoServer(server: McpServer, acpContext: AgentContext): Promise<DoClient> {
  if ("type" in server && (server as { type: string }).type === "acp") {
    const serverId = (server as unknown as { serverId: string }).serverId;
    return {
      async call(number) {
        const outcome = await acpCaller.request(acpContext, serverId, "tools/call", { name: "do", arguments: { number } });
        if ("error" in outcome) return { text: outcome.error.message, isError: true };
        return fromResult(outcome.result);
      },
      close: async () => undefined,
    };
  }
  const client = new Client({ name: "patchwork-test-agent", version: "0.1.0" });
  if ("type" in server && server.type === "http") {
    const headers: Record<string, string> = {};
    for (const h of server.headers) headers[h.name] = h.value;
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  } else if ("type" in server && server.type === "sse") {
    throw new Error("sse MCP servers are not supported by the test agent");
  } else {
    const stdio = server as Extract<McpServer, { command: string }>;
    const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
    for (const e of stdio.env) env[e.name] = e.value;
    await client.connect(new StdioClientTransport({ command: stdio.command, args: stdio.args, env, stderr: "inherit" }));
  }
  return {
    async call(number) {
      const result = await client.callTool({ name: "do", arguments: { number } });
      return fromResult(result);
    },
    close: () => client.close(),
  };
}

function fromResult(result: unknown): ToolOutcome {
  const r = result as { content?: { type: string; text?: string }[]; isError?: boolean };
  const text = (r.content ?? []).map((c) => (c.type === "text" ? c.text ?? "" : `[${c.type}]`)).join("");
  return { text, isError: r.isError === true };
}
