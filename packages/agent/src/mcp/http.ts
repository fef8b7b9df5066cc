/**
 * Streamable-HTTP transport for the `do` server: 127.0.0.1, random port, one bearer token
 * per session. A request without a known token gets 401 and nothing else.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import { createDoServer, type DoCall } from "./do-server.js";

export interface TokenLookup {
  (token: string): { call: DoCall } | undefined;
}

/**
 * One MCP session (2025-era initialize handshake) of one think session's token: a server
 * instance kept for the session's lifetime, so a `do` call costs one request, not a fresh
 * server per request as in the stateless fallback (measured ≈8 ms → ≈1 ms per call).
 */
type McpSessions = Map<string, WebStandardStreamableHTTPServerTransport>;

export class HttpMcpServer {
  private readonly sessions = new Map<string, McpSessions>();

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
    let self: HttpMcpServer | null = null;
    const server = createServer((req, res) => {
      self!.serve(req, res, lookup, handler).catch((error: unknown) => {
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
    self = new HttpMcpServer(server, handler, `http://127.0.0.1:${port}/mcp`);
    return self;
  }

  /** Closes the MCP sessions opened with `token` (its think session is over). */
  async release(token: string): Promise<void> {
    const sessions = this.sessions.get(token);
    this.sessions.delete(token);
    for (const transport of sessions?.values() ?? []) await transport.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const token of [...this.sessions.keys()]) await this.release(token);
    await this.handler.close().catch(() => undefined);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse, lookup: TokenLookup, handler: McpHttpHandler) {
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
    const response = await this.dispatch(request, body, token, entry, handler);
    const outHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => (outHeaders[name] = value));
    res.writeHead(response.status, outHeaders);
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    }
    res.end();
  }

  /** Sessionful for the 2025 handshake (fast repeated calls), stateless handler otherwise. */
  private async dispatch(
    request: Request,
    body: Buffer | undefined,
    token: string,
    entry: { call: DoCall },
    handler: McpHttpHandler,
  ): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    let sessions = this.sessions.get(token);
    if (sessionId) {
      const transport = sessions?.get(sessionId);
      if (transport) return transport.handleRequest(request);
    } else if (request.method === "POST" && body && isInitialize(body)) {
      if (!sessions) this.sessions.set(token, (sessions = new Map()));
      const owned = sessions;
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => void owned.set(id, transport),
        onsessionclosed: (id) => void owned.delete(id),
      });
      await createDoServer(entry.call).connect(transport);
      return transport.handleRequest(request);
    }
    return handler.fetch(request, { authInfo: { token, clientId: "acp-agent", scopes: [], extra: { entry } } });
  }
}

function isInitialize(body: Buffer): boolean {
  try {
    return isInitializeRequest(JSON.parse(body.toString("utf8")));
  } catch {
    return false;
  }
}
