/**
 * `patchwork mcp --http PORT`: Streamable HTTP on 127.0.0.1 only, one server instance per MCP
 * session (the 2025 `initialize` handshake; responses stream as SSE, so progress notifications
 * and sampling requests reach the client during a call). Host and Origin headers must name the
 * local host at our port, else 403 (DNS-rebinding protection), checked before anything else. With a token, as the `do` server does, a request
 * without `Authorization: Bearer <token>` gets 401 and nothing else.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID, timingSafeEqual } from "node:crypto";
import { Readable } from "node:stream";
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport, type Server } from "@modelcontextprotocol/server";
import type { Logger } from "@patchwork/agent";
import { check, DEFAULT_LIMITS, bytesShown, errorResponse, INVALID_REQUEST, type ErrorResponse } from "../guard/jsonrpc.js";
import { MessageScanner } from "../guard/scan.js";
import { DEFAULT_SESSION_LIMITS, Sessions, type SessionLimits } from "./sessions.js";

export interface HttpHandle {
  url: string;
  close(): Promise<void>;
}

export interface HttpOptions {
  port: number;
  token?: string;
  create: () => Server;
  logger?: Logger;
  /** The server's own check of a message (inspect.ts): a response to send instead, or null. */
  inspect?: (message: Record<string, unknown>) => object | null;
  /** Bounds on the sessions (sessions.ts); each field defaults. */
  sessions?: Partial<SessionLimits>;
}

const MAX_BODY = 4 * 1024 * 1024;

export async function startHttp(options: HttpOptions): Promise<HttpHandle> {
  const warn = (message: string) => options.logger?.warn(message);
  const sessions = new Sessions({ ...DEFAULT_SESSION_LIMITS, ...options.sessions }, warn);
  const http = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      options.logger?.warn(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  let port = options.port;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!local(req, port)) {
      req.resume();
      res.writeHead(403, { "content-type": "text/plain" }).end("Host and Origin must name this machine (127.0.0.1, localhost)");
      return;
    }
    if (!authorized(req, options.token)) {
      req.resume();
      res.writeHead(401, { "www-authenticate": "Bearer" }).end();
      return;
    }
    if (!(req.url ?? "").startsWith("/mcp")) {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (body === null) {
      res.writeHead(413, { connection: "close" }).end();
      return;
    }
    const refused = body ? refusal(body.text, body.json) : null;
    if (refused) {
      warn(refused.why);
      jsonError(res, 400, refused.reply);
      return;
    }
    const answer = body?.json && typeof body.json === "object" && !Array.isArray(body.json) && typeof req.headers["mcp-session-id"] === "string" ? options.inspect?.(body.json as Record<string, unknown>) : null;
    if (answer) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      return;
    }
    const request = toRequest(req, body?.text);
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === "string" || !body || !isInitializeRequest(body.json)) {
        jsonError(res, typeof id === "string" ? 404 : 400, errorResponse(null, -32000, "no MCP session: initialize first"));
        return;
      }
      const initId = (body.json as unknown as { id?: string | number }).id ?? null;
      const limit = sessions.limits.maxInitializeBytes;
      if (Buffer.byteLength(body.text) > limit) {
        warn(`refused an initialize request of ${Buffer.byteLength(body.text)} bytes: the limit is ${bytesShown(limit)}`);
        jsonError(res, 413, errorResponse(initId, INVALID_REQUEST, `initialize request too large: ${Buffer.byteLength(body.text)} bytes, the limit is ${bytesShown(limit)}`));
        return;
      }
      if (!(await sessions.makeRoom())) {
        const message = `too many MCP sessions: ${sessions.limits.max} (the limit), each with a request under way; try again later`;
        warn(message);
        jsonError(res, 503, errorResponse(initId, -32000, message));
        return;
      }
      transport = newSession();
      await options.create().connect(transport);
    }
    const done = typeof id === "string" ? sessions.use(id) : () => undefined;
    try {
      await send(await transport.handleRequest(request), res);
    } finally {
      done();
    }
  }

  function newSession(): WebStandardStreamableHTTPServerTransport {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    return transport;
  }

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, "127.0.0.1", () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await sessions.closeAll();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A body the servers' checks refuse (guard/jsonrpc.ts): too deep, or an object that is no valid JSON-RPC message; a batch's elements are the SDK's to check. */
function refusal(text: string, json: unknown): { reply: ErrorResponse; why: string } | null {
  const scanner = new MessageScanner();
  const bytes = Buffer.from(text);
  scanner.push(bytes);
  if (json !== undefined && Array.isArray(json) && scanner.maxDepth <= DEFAULT_LIMITS.maxDepth) return null;
  const verdict = check(text, scanner, DEFAULT_LIMITS);
  return verdict.ok || verdict.reply === null ? null : { reply: verdict.reply, why: verdict.why };
}

function jsonError(res: ServerResponse, status: number, body: ErrorResponse): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The Host header, and the Origin header when there is one, name the local host at our port (DNS-rebinding protection). */
function local(req: IncomingMessage, port: number): boolean {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const origin = req.headers.origin;
  return hosts.includes(req.headers.host ?? "") && (origin === undefined || hosts.some((h) => origin === `http://${h}`));
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const auth = req.headers.authorization ?? "";
  const given = Buffer.from(auth.startsWith("Bearer ") ? auth.slice(7).trim() : "");
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** The body as text and JSON (undefined JSON when it does not parse), or null past the limit. */
async function readJson(req: IncomingMessage): Promise<{ text: string; json: unknown } | null> {
  if (Number(req.headers["content-length"]) > MAX_BODY) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return { text, json: undefined };
  }
}

function toRequest(req: IncomingMessage, body: string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, { method: req.method ?? "GET", headers, body });
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  res.flushHeaders();
  if (response.body) {
    const stream = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
    res.on("close", () => stream.destroy());
    for await (const chunk of stream) res.write(chunk);
  }
  res.end();
}
