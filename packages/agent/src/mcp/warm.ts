/**
 * The first requests an agent makes to the HTTP `do` server, made by the server's own process
 * ahead of time (`McpHub.warm`). On its first request the MCP SDK builds its schemas and Node
 * loads the classes of its fetch API: 0.15–0.3 s of CPU on this project's 2-core machines,
 * measured with Claude Code, whose processes connect to the server as their start ends: that
 * work then delays the answer to `session/new` the think is waiting for. Done while the agent
 * is still starting, it costs the same CPU off the critical path.
 */
import { request } from "node:http";

/** What Claude Code 2.1 sends first (MCP's 2026 protocol: no initialize handshake). */
const PROTOCOL = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL,
  "io.modelcontextprotocol/clientInfo": { name: "patchwork-warm-up", version: "0.1.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * Posts `server/discover` then `tools/list` to `url` with `token`; resolves when both are
 * answered: true when both got a JSON-RPC result, false when one failed (never rejects).
 */
export async function warmHttpServer(url: string, token: string): Promise<boolean> {
  let ok = true;
  for (const [id, method] of [
    ["warm-1", "server/discover"],
    ["warm-2", "tools/list"],
  ] as const) {
    const answer = await post(url, token, method, JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: META } }));
    ok &&= answer.includes('"result"');
  }
  return ok;
}

/** The response's body ("" when the request failed). */
function post(url: string, token: string, method: string, body: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-method": method,
        "mcp-protocol-version": PROTOCOL,
        "content-length": Buffer.byteLength(body),
      },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve(text)).on("error", () => resolve(""));
    });
    req.on("error", () => resolve(""));
    req.end(body);
  });
}
