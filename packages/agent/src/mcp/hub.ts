/**
 * All MCP `do` endpoints of one runtime. `declare` gives each think session its own
 * declaration (a fresh bearer token for http and stdio, a fresh server id for acp) bound
 * to that session; servers are started lazily, once, and closed with the runtime.
 */
import { randomBytes } from "node:crypto";
import type { McpServer as AcpMcpServer } from "@agentclientprotocol/sdk/unstable";
import { McpOverAcpProvider, type HasConnectionContext } from "@agentclientprotocol/sdk/unstable";
import { fromMcpServer } from "@agentclientprotocol/sdk/experimental/mcp-server";
import { createDoServer, MCP_SERVER_NAME, type DoCall } from "./do-server.js";
import { HttpMcpServer } from "./http.js";
import { warmHttpServer } from "./warm.js";
import { UnixMcpServer } from "./unix.js";
import { relayScriptPath, RELAY_TOKEN_ENV } from "./relay.js";
import type { McpTransport } from "../types.js";

export interface McpDeclaration {
  server: AcpMcpServer;
  /** Stops accepting calls for this session (its token no longer opens anything). */
  release(): Promise<void>;
  /** Whether the agent has reached this session's endpoint at all (listed its tools, called one). */
  readonly contacted: boolean;
}

/**
 * Bearer tokens of 24 random bytes, cut from a pool drawn 64 tokens at a time: one call into
 * the CSPRNG per 64 thinks instead of one per think (≈10 µs each on a loaded machine).
 */
class TokenSource {
  private pool = Buffer.alloc(0);
  private at = 0;

  next(): string {
    if (this.at >= this.pool.length) {
      this.pool = randomBytes(24 * 64);
      this.at = 0;
    }
    const token = this.pool.subarray(this.at, this.at + 24).toString("base64url");
    this.pool.fill(0, this.at, this.at + 24);
    this.at += 24;
    return token;
  }
}

export class McpHub {
  private readonly tokens = new TokenSource();
  private readonly entries = new Map<string, { call: DoCall; contacted: boolean }>();
  private http: Promise<HttpMcpServer> | null = null;
  private unix: Promise<UnixMcpServer> | null = null;
  readonly acpProvider = new McpOverAcpProvider();
  private acpContext: HasConnectionContext | null = null;
  private closed = false;

  constructor(private readonly onError: (error: Error) => void) {}

  /** The ACP connection the `acp` transport serves over. */
  bindAcp(context: HasConnectionContext): void {
    this.acpContext = context;
  }

  async declare(transport: McpTransport, call: DoCall): Promise<McpDeclaration> {
    if (this.closed) throw new Error("the MCP hub is closed");
    if (transport === "acp") return this.declareAcp(call);
    const token = this.tokens.next();
    const entry = { call, contacted: false };
    this.entries.set(token, entry);
    const release = async () => {
      this.entries.delete(token);
      if (this.http) await (await this.http).release(token);
    };
    const lookup = (t: string) => {
      const found = this.entries.get(t);
      if (found) found.contacted = true;
      return found;
    };
    if (transport === "http") {
      this.http ??= HttpMcpServer.start(lookup, this.onError);
      const http = await this.http;
      return {
        server: {
          type: "http",
          name: MCP_SERVER_NAME,
          url: http.url,
          headers: [{ name: "Authorization", value: `Bearer ${token}` }],
        },
        release,
        get contacted() {
          return entry.contacted;
        },
      };
    }
    this.unix ??= UnixMcpServer.start(lookup, this.onError);
    const unix = await this.unix;
    return {
      server: {
        name: MCP_SERVER_NAME,
        command: process.execPath,
        args: [relayScriptPath, unix.path],
        env: [{ name: RELAY_TOKEN_ENV, value: token }],
      },
      release,
      get contacted() {
        return entry.contacted;
      },
    };
  }

  private declareAcp(call: DoCall): McpDeclaration {
    if (!this.acpContext) throw new Error("no ACP connection for the acp MCP transport");
    const adapter = fromMcpServer(() => createDoServer(call), { onerror: this.onError });
    const registration = this.acpProvider.registerServer(this.acpContext, {
      name: MCP_SERVER_NAME,
      handler: adapter.handler,
    });
    return {
      server: registration.declaration as unknown as AcpMcpServer,
      release: async () => {
        await registration.dispose().catch(() => undefined);
        await adapter.close().catch(() => undefined);
      },
      contacted: true, // not tracked over ACP: never reported as not offered

    };
  }

  /** Declarations not yet released. */
  get declarations(): number {
    return this.entries.size;
  }

  /**
   * Starts the HTTP `do` server if needed and makes an agent's first requests to it with a
   * declaration of its own, released after (`warmHttpServer`): call it while the agent starts
   * its first sessions. Whether both requests were answered; never throws.
   */
  async warm(): Promise<boolean> {
    try {
      const declaration = await this.declare("http", async () => ({ content: [], isError: true }));
      const server = declaration.server as { url: string; headers: { name: string; value: string }[] };
      try {
        return await warmHttpServer(server.url, server.headers[0]!.value.slice("Bearer ".length));
      } finally {
        await declaration.release();
      }
    } catch {
      return false; // the hub closed meanwhile: nothing to warm
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.entries.clear();
    const closing: Promise<void>[] = [];
    if (this.http) closing.push(this.http.then((s) => s.close()).catch(() => undefined));
    if (this.unix) closing.push(this.unix.then((s) => s.close()).catch(() => undefined));
    await Promise.all(closing);
  }
}
