/**
 * `do` endpoints for an agent that keeps one MCP server of a name per working directory for
 * all its sessions (`AgentProfile.mcpScope: "directory"`, OpenCode). Naming a new endpoint in
 * every `session/new` would replace the one before and cut off its calls in flight (a nested
 * think), so each directory gets one endpoint, named in its first `session/new` only, and it
 * stays for the agent's life. The agent registers it while it answers that `session/new`; a
 * session of the directory answered before it (made side by side: two sessions ahead, two
 * workers' thinks) would be prompted without the tool, so such a session is handed to its
 * think only once the naming one has been answered (`registered`).
 *
 * Such an endpoint's calls say nothing of the session they come from. A call of `do(n)` is
 * given to the think whose session announced a call of our tool (`tool_call` with the
 * profile's identity, `rawInput.number` n) that is still running and not matched with an
 * earlier call, and only when no other think could have made it: every other think whose turn
 * is under way is inside one of its `do` blocks (a nested think's outer think waits there).
 * The announcement may come after the call (two channels): the call waits for it. Two thinks
 * free at once (workers) could each have made the call, and the agent's announcement of one
 * may trail the other's call: the call waits until all but one are inside a `do` or done, and
 * fails with a tool error saying why after `ANNOUNCE_WAIT_MS` (then the agent's report of the
 * failed call makes the think fail, PW4017): never a result given to the wrong think.
 */
import type { McpServer as AcpMcpServer, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { toolText, type DoCall } from "../mcp/do-server.js";
import type { McpDeclaration } from "../mcp/hub.js";
import type { ToolCallLedger } from "./permissions.js";
import { blockNumberOf } from "./turn-record.js";

/** How long a `do` call waits for the agent's announcement of it (it usually precedes the call). */
export const ANNOUNCE_WAIT_MS = 10_000;

export interface SharedDoDeps {
  ledger: ToolCallLedger;
  /** A fresh declaration whose calls go to `call` (the hub's). */
  declare(call: DoCall): Promise<McpDeclaration>;
  /** The thinks whose turn is under way: their session, and whether they are inside one of their `do` blocks. */
  activeSessions(): Iterable<{ sessionId: string; inDo: boolean }>;
  /** Whether an announced tool call is one of our `do` tool (the profile's identity). */
  isOurs(call: ToolCallUpdate): boolean;
  /** Hands a `do` call to the think of `sessionId` (the redirect actor). */
  route(sessionId: string, index: number): Promise<CallToolResult>;
  /** How long a call waits for its announcement (default `ANNOUNCE_WAIT_MS`). */
  announceWaitMs?: number;
}

const DONE = new Set(["completed", "failed"]);

/** A directory's endpoint: its declaration, and whether the `session/new` naming it was answered. */
interface Endpoint {
  declaration: Promise<McpDeclaration>;
  /** True once the `session/new` that names it has been answered, false if it failed. */
  registered: Promise<boolean>;
  settle(ok: boolean): void;
}

/** What a `session/new` of a directory names, and how its session learns the endpoint is registered. */
export interface SessionEndpoint {
  servers: AcpMcpServer[];
  declaration: McpDeclaration;
  /** Settles once the endpoint is registered at the agent (true) or its registration failed (false). */
  registered: Promise<boolean>;
  /** For the `session/new` that names the endpoint: call with true once it is answered (a failure: `forget`). */
  settle: ((ok: boolean) => void) | null;
}

export class SharedDoEndpoints {
  private readonly byCwd = new Map<string, Endpoint>();

  constructor(private readonly deps: SharedDoDeps) {}

  /**
   * What a `session/new` in `cwd` names (the endpoint the first time, nothing after), and the
   * declaration a think of that session reports on (`contacted`); releasing it does nothing:
   * the endpoint lives as long as the agent.
   */
  async forSession(cwd: string): Promise<SessionEndpoint> {
    const known = this.byCwd.get(cwd);
    const endpoint = known ?? this.newEndpoint();
    if (!known) this.byCwd.set(cwd, endpoint);
    let declaration: McpDeclaration;
    try {
      declaration = await endpoint.declaration;
    } catch (error) {
      this.forget(cwd);
      throw error;
    }
    const view: McpDeclaration = {
      server: declaration.server,
      release: async () => undefined,
      get contacted() {
        return declaration.contacted;
      },
    };
    return { servers: known ? [] : [declaration.server], declaration: view, registered: endpoint.registered, settle: known ? null : endpoint.settle };
  }

  private newEndpoint(): Endpoint {
    let settle!: (ok: boolean) => void;
    const registered = new Promise<boolean>((resolve) => (settle = resolve));
    return { declaration: this.deps.declare((index) => this.attribute(index)), registered, settle };
  }

  /** Forgets the directory's endpoint (its `session/new` failed: the next one names it again). */
  forget(cwd: string): void {
    this.byCwd.get(cwd)?.settle(false);
    this.byCwd.delete(cwd);
  }

  /** Gives a call of `do(index)` to the think that announced it (see the file's comment). */
  private async attribute(index: number): Promise<CallToolResult> {
    const { ledger } = this.deps;
    const deadline = Date.now() + (this.deps.announceWaitMs ?? ANNOUNCE_WAIT_MS);
    for (;;) {
      const active = [...this.deps.activeSessions()];
      const found = this.candidates(index, active);
      const others = (sessionId: string) => active.filter((a) => !a.inDo && a.sessionId !== sessionId).length;
      if (found.length === 1 && others(found[0]!.sessionId) === 0) {
        const [{ sessionId, toolCallId }] = found;
        ledger.claim(sessionId, toolCallId);
        return this.deps.route(sessionId, index);
      }
      if (found.length > 1) return ambiguous(index, found.length);
      const left = deadline - Date.now();
      if (left <= 0) {
        if (found.length === 1) return ambiguous(index, 1 + others(found[0]!.sessionId));
        return toolText(`no think announced this call of do(${index}) (the agent never reported it as a tool call of its session); it did not run`, true);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        const stop = ledger.listen(done);
        function done() {
          clearTimeout(timer);
          stop();
          resolve();
        }
      });
    }
  }

  private candidates(index: number, active: { sessionId: string }[]): { sessionId: string; toolCallId: string }[] {
    const { ledger, isOurs } = this.deps;
    const found: { sessionId: string; toolCallId: string }[] = [];
    for (const { sessionId } of active) {
      for (const call of ledger.calls(sessionId)) {
        if (DONE.has(call.status ?? "") || ledger.isClaimed(sessionId, call.toolCallId)) continue;
        if (blockNumberOf(call.rawInput) !== index || !isOurs(call)) continue;
        found.push({ sessionId, toolCallId: call.toolCallId });
        break; // the oldest of the session: a turn runs its calls of one block in order
      }
    }
    return found;
  }
}

function ambiguous(index: number, thinks: number): CallToolResult {
  return toolText(
    `Patchwork cannot tell which of ${thinks} thinks running at once called do(${index}): their agent shares one MCP server per directory; this call did not run`,
    true,
  );
}
