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

/**
 * Largest request body read (the MCP SDK's own default, 4 MiB). A larger one is refused with
 * 413 as soon as its Content-Length or its first bytes past the limit show it: never buffered.
 */
export const MAX_REQUEST_BODY = 4 * 1024 * 1024;

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
    // Idle keep-alive connections are closed by the client, never by us: a server that closes
    // an idle socket races a client that picks it for its next request at that moment (its own
    // idle timer late on a busy event loop), and the client's `do` call fails with ECONNRESET
    // (seen with Claude Code starting three sessions at once on a loaded machine). Every
    // connection is closed when the server closes (closeAllConnections).
    server.keepAliveTimeout = 0;
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
    const received = await readBody(req, MAX_REQUEST_BODY);
    if (received === null) return tooLarge(res);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else headers.set(name, value);
    }
    const method = req.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? undefined : received;
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

/** The request body, or null as soon as it is known to exceed `limit` (reading stops there). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers["content-length"]) > limit) return resolve(null);
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off("data", onData).off("end", onEnd).off("error", onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      done();
      req.pause();
      resolve(null);
    };
    const onEnd = (): void => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    req.on("data", onData).on("end", onEnd).on("error", onError);
  });
}

/** 413 with the SDK's JSON-RPC error; the connection closes, the rest of the body is never read. */
function tooLarge(res: ServerResponse): void {
  const message = `Payload Too Large: Request body must not exceed ${MAX_REQUEST_BODY} bytes`;
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
  res.writeHead(413, { "content-type": "application/json", connection: "close" });
  res.end(body);
}
