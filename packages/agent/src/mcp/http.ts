/**
 * Streamable-HTTP transport for the `do` server: 127.0.0.1, random port, one bearer token
 * per session. A request without a known token gets 401 and nothing else.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { createDoServer, type DoCall } from "./do-server.js";

export interface TokenLookup {
  (token: string): { call: DoCall } | undefined;
}

export class HttpMcpServer {
  private constructor(
    private readonly server: Server,
    private readonly handler: McpHttpHandler,
    readonly url: string,
  ) {}

  static async start(lookup: TokenLookup, onError: (error: Error) => void): Promise<HttpMcpServer> {
    const handler = createMcpHandler(
      (ctx) => {
        const entry = (ctx.authInfo?.extra as { entry?: { call: DoCall } } | undefined)?.entry;
        // Unreachable without a token (checked before dispatch); answer errors, never throw.
        return createDoServer(entry ? entry.call : async () => ({ content: [], isError: true }));
      },
      { onerror: onError },
    );
    const server = createServer((req, res) => {
      serve(req, res, lookup, handler).catch((error: unknown) => {
        onError(error instanceof Error ? error : new Error(String(error)));
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    return new HttpMcpServer(server, handler, `http://127.0.0.1:${port}/mcp`);
  }

  async close(): Promise<void> {
    await this.handler.close().catch(() => undefined);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, lookup: TokenLookup, handler: McpHttpHandler) {
  const auth = req.headers.authorization ?? "";
  const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  const entry = token ? lookup(token) : undefined;
  if (!entry || !(req.url ?? "").startsWith("/mcp")) {
    req.resume();
    res.writeHead(401, { "www-authenticate": "Bearer" });
    res.end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks);
  const request = new Request(`http://127.0.0.1${req.url}`, { method, headers, body });
  const response = await handler.fetch(request, {
    authInfo: { token, clientId: "acp-agent", scopes: [], extra: { entry } },
  });
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => (outHeaders[name] = value));
  res.writeHead(response.status, outHeaders);
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  }
  res.end();
}
