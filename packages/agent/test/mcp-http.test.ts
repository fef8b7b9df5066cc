// The MCP endpoint refuses an oversized request body as soon as it sees it: a real HTTP
// client streams 50 MB at the real server and gets 413 long before it could send it all.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpMcpServer, MAX_REQUEST_BODY } from "../src/mcp/http.js";

const TOKEN = "test-token";
let server: HttpMcpServer;

beforeAll(async () => {
  const call = async () => ({ content: [], isError: true });
  server = await HttpMcpServer.start((token) => (token === TOKEN ? { call } : undefined), () => undefined);
});

afterAll(async () => {
  await server.close();
});

interface Streamed {
  status: number | null;
  body: string;
  sent: number;
  ms: number;
}

/** POSTs up to `total` bytes in 64 KiB chunks (respecting backpressure) until a response comes. */
function stream(total: number, headers: Record<string, string>): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    const req = request(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    });
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? null, body, sent, ms: Date.now() - start }));
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = (): void => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe("MCP request body limit", () => {
  const total = 50 * 1024 * 1024;

  it("a streamed 50 MB body (no Content-Length) gets 413 after about the limit, not the whole body", async () => {
    const before = process.memoryUsage();
    const r = await stream(total, {});
    const after = process.memoryUsage();
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, message: expect.stringMatching(/Payload Too Large/) } });
    // The server stopped reading: the client could not push much past the limit (socket buffers).
    expect(r.sent).toBeLessThan(MAX_REQUEST_BODY + 16 * 1024 * 1024);
    expect(r.ms).toBeLessThan(10_000);
    // Nothing near 50 MB was kept (the server runs in this process).
    expect(after.arrayBuffers + after.heapUsed - (before.arrayBuffers + before.heapUsed)).toBeLessThan(30 * 1024 * 1024);
  });

  it("a declared Content-Length over the limit gets 413 before any of the body is read", async () => {
    const r = await stream(total, { "content-length": String(total) });
    expect(r.status).toBe(413);
    expect(r.sent).toBeLessThan(MAX_REQUEST_BODY + 16 * 1024 * 1024);
  });

  it("a body under the limit still reaches the MCP handler", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {}, pad: "x".repeat(1024 * 1024) });
    const r = await new Promise<{ status: number | null }>((resolve, reject) => {
      const req = request(server.url, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      });
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? null }));
      });
      req.on("error", reject);
      req.end(body);
    });
    expect(r.status).not.toBe(413);
    expect(r.status).toBeLessThan(500);
  });
});
