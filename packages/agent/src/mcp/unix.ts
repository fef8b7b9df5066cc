/**
 * The stdio transport's server side: a Unix socket of ours. The agent spawns the relay
 * (`runMcpRelay`) as a stdio MCP server; the relay connects here, presents its session token
 * on the first line, then pipes MCP stdio bytes both ways. A wrong token closes the connection.
 */
import { createServer, type Server, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { createDoServer } from "./do-server.js";
import type { TokenLookup } from "./http.js";

const TOKEN_LINE_LIMIT = 512;

export class UnixMcpServer {
  private readonly sockets = new Set<Socket>();
  private readonly closers = new Set<{ close(): Promise<void> }>();

  private constructor(
    private readonly server: Server,
    private readonly dir: string,
    readonly path: string,
  ) {}

  static async start(lookup: TokenLookup, onError: (error: Error) => void): Promise<UnixMcpServer> {
    const dir = mkdtempSync(join(tmpdir(), "pw-mcp-"));
    const path = join(dir, "do.sock");
    let self: UnixMcpServer | null = null;
    const server = createServer((socket) => self!.accept(socket, lookup, onError));
    self = new UnixMcpServer(server, dir, path);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    return self;
  }

  private accept(socket: Socket, lookup: TokenLookup, onError: (error: Error) => void): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), 5_000);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const newline = head.indexOf(10);
      if (newline < 0) {
        if (head.length > TOKEN_LINE_LIMIT) socket.destroy();
        return;
      }
      clearTimeout(timer);
      socket.off("data", onData);
      socket.pause();
      const entry = lookup(head.subarray(0, newline).toString("utf8").trim());
      if (!entry) {
        socket.destroy();
        return;
      }
      const rest = head.subarray(newline + 1);
      if (rest.length > 0) socket.unshift(rest);
      const handle = serveStdio(() => createDoServer(entry.call), {
        transport: new StdioServerTransport(socket, socket),
        onerror: onError,
      });
      this.closers.add(handle);
      socket.once("close", () => {
        this.closers.delete(handle);
        handle.close().catch(() => undefined);
      });
      socket.resume();
    };
    socket.on("data", onData);
  }

  async close(): Promise<void> {
    for (const handle of this.closers) await handle.close().catch(() => undefined);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
