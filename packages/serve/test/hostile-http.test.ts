// `patchwork mcp --http` against hostile or buggy clients: sessions are bounded (count, idle
// expiry, the size of what a session keeps), bodies too deep or not valid JSON-RPC are answered
// with an error naming the limit and the request's id, and without PATCHWORK_MCP_TOKEN the
// server warns at start that any local user can call its tools.
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { serveMcp, type McpServerHandle } from "../dist/index.js";
import { folderWith, patchworkBin } from "./mcp-helpers.js";
import { nested } from "./raw-peer.js";

const dir = folderWith({ "s.pw": `@skill echo\nskill echo(value: string) { print(value) }\n` });
const handles: McpServerHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.close();
});

async function server(sessions: { max?: number; idleMs?: number; maxInitializeBytes?: number } = {}): Promise<string> {
  const h = await serveMcp({ paths: ["s.pw"], cwd: dir, http: { port: 0, sessions }, watch: false });
  handles.push(h);
  return h.url!;
}

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initialize = (id: number, capabilities: object = {}) => ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "raw", version: "1" } } });

async function post(url: string, body: string | object, session?: string): Promise<{ status: number; session: string | null; text: string }> {
  const r = await fetch(url, { method: "POST", headers: { ...headers, ...(session ? { "mcp-session-id": session } : {}) }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: r.status, session: r.headers.get("mcp-session-id"), text: await r.text() };
}

async function open(url: string): Promise<string> {
  const r = await post(url, initialize(1));
  expect(r.status).toBe(200);
  return r.session!;
}

const ping = (url: string, session: string) => post(url, { jsonrpc: "2.0", id: 2, method: "ping" }, session);

describe("patchwork mcp --http: sessions are bounded", () => {
  it("an initialize request carrying 3 MB of capabilities: 413 naming the limit, no session kept", async () => {
    const url = await server();
    const r = await post(url, initialize(5, { experimental: { blob: { data: "c".repeat(3 * 1024 * 1024) } } }));
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text)).toMatchObject({ id: 5, error: { code: -32600, message: expect.stringMatching(/^initialize request too large: \d+ bytes, the limit is 64 KiB$/) } });
    expect(r.session).toBe(null);
  });

  it("past the most sessions, the least recently used idle one is closed (its client gets 404)", async () => {
    const url = await server({ max: 3 });
    const first = await open(url);
    const others = [await open(url), await open(url)];
    expect((await ping(url, first)).status).toBe(200); // `first` is now the most recently used
    await open(url);
    expect((await ping(url, others[0]!)).status).toBe(404);
    expect((await ping(url, first)).status).toBe(200);
  });

  it("a session without a request for idleMs is closed", async () => {
    const url = await server({ idleMs: 300 });
    const s = await open(url);
    expect((await ping(url, s)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 900));
    expect((await ping(url, s)).status).toBe(404);
  });

  it("a body nested 5,000 levels or an invalid request: 400 with the request's id, the session still serves", async () => {
    const url = await server();
    const s = await open(url);
    const deep = await post(url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"value":${nested(5000)}}}}`, s);
    expect(deep.status).toBe(400);
    expect(JSON.parse(deep.text)).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32600, message: "message nested too deeply: 5003 levels, the limit is 256" } });
    const bad = await post(url, { jsonrpc: "2.0", id: 8, method: 5 }, s);
    expect(JSON.parse(bad.text)).toEqual({ jsonrpc: "2.0", id: 8, error: { code: -32600, message: 'invalid request: "method" must be a string' } });
    const nullParams = await post(url, { jsonrpc: "2.0", id: 9, method: "tools/list", params: null }, s);
    expect(JSON.parse(nullParams.text).error.code).toBe(-32602);
    expect((await ping(url, s)).status).toBe(200);
  });
});

describe("patchwork mcp --http: the token", () => {
  const started = (env: Record<string, string>) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [patchworkBin, "mcp", "s.pw", "--http", "0"], { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir, ...env }, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      const timer = setTimeout(() => (child.kill(), reject(new Error(stderr))), 20_000);
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (/tool\(s\)/.test(stderr)) {
          clearTimeout(timer);
          child.kill();
          resolve(stderr);
        }
      });
    });

  it("without PATCHWORK_MCP_TOKEN a warning at start; with it none", async () => {
    expect(await started({})).toMatch(/^patchwork mcp: warning: no PATCHWORK_MCP_TOKEN: every local user and process can call these tools at http:\/\/127\.0\.0\.1:\d+\/mcp; set PATCHWORK_MCP_TOKEN to require it as a bearer token\n/);
    expect(await started({ PATCHWORK_MCP_TOKEN: "s3cret" })).not.toMatch(/warning/);
  });
});
