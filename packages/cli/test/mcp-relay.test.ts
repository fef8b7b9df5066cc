// `patchwork mcp-relay SOCKET`: what a stdio-only agent spawns to reach our MCP `do` server.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect, it } from "vitest";
import { patchworkBin, tempFiles } from "./helpers.js";

it("presents the token, then pipes stdin to the socket and the socket to stdout", async () => {
  const socketPath = join(tempFiles({}), "mcp.sock");
  let received = "";
  const server = createServer((conn) => {
    conn.on("data", (data) => {
      received += data;
      if (received.endsWith("ping\n")) conn.end("pong\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    const child = spawn(process.execPath, [patchworkBin, "mcp-relay", socketPath], {
      env: { ...process.env, PATCHWORK_MCP_TOKEN: "secret-token" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stdin.write("ping\n");
    const status = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(received).toBe("secret-token\nping\n");
    expect(stdout).toBe("pong\n");
    expect(status).toBe(0);
  } finally {
    server.close();
  }
});
