/**
 * The sessions of `patchwork mcp --http`, bounded (docs/security.md, "Servers"): at most
 * `max` at once (when full, the least recently used session with no request under way is
 * closed to make room: its client gets 404 and initializes again, as MCP asks; when every session
 * is busy, 503), each closed after `idleMs` without a request, and an `initialize` body (what a
 * session keeps of its client: capabilities, client info) at most `maxInitializeBytes`.
 */
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

export interface SessionLimits {
  /** Most sessions at once (default 100). */
  max: number;
  /** A session without a request for this long is closed (default 30 minutes). */
  idleMs: number;
  /** Largest `initialize` request body (default 64 KiB). */
  maxInitializeBytes: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { max: 100, idleMs: 30 * 60_000, maxInitializeBytes: 64 * 1024 };

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
  /** Requests under way (an SSE stream open counts until it ends). */
  active: number;
}

export class Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    readonly limits: SessionLimits,
    private readonly log: (message: string) => void,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(60_000, limits.idleMs / 2)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): WebStandardStreamableHTTPServerTransport | undefined {
    return this.sessions.get(id)?.transport;
  }

  add(id: string, transport: WebStandardStreamableHTTPServerTransport): void {
    this.sessions.set(id, { transport, lastUsed: Date.now(), active: 0 });
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  /** Marks a request of session `id` under way; the returned function ends it. */
  use(id: string): () => void {
    const s = this.sessions.get(id);
    if (!s) return () => undefined;
    s.active++;
    s.lastUsed = Date.now();
    return () => {
      s.active--;
      s.lastUsed = Date.now();
    };
  }

  /** Room for one more session: true, or false when every session is busy. */
  async makeRoom(): Promise<boolean> {
    if (this.sessions.size < this.limits.max) return true;
    let oldest: [string, Session] | null = null;
    for (const entry of this.sessions) if (entry[1].active === 0 && (!oldest || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    if (!oldest) return false;
    this.log(`${this.limits.max} MCP sessions (the limit): closed the least recently used one to start another`);
    await this.end(oldest[0], oldest[1]);
    return true;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, s] of this.sessions) if (s.active === 0 && now - s.lastUsed >= this.limits.idleMs) void this.end(id, s);
  }

  private async end(id: string, s: Session): Promise<void> {
    this.sessions.delete(id);
    await s.transport.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    for (const [id, s] of [...this.sessions]) await this.end(id, s);
  }
}
