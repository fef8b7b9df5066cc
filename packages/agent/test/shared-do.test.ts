// The directory-wide `do` endpoint of an agent with one MCP registry per directory (OpenCode):
// named once per directory, each call given to the think whose session announced it.
import { describe, expect, it } from "vitest";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { SharedDoEndpoints } from "../dist/acp/shared-do.js";
import { ToolCallLedger } from "../dist/acp/permissions.js";
import { toolText, type DoCall } from "../dist/mcp/do-server.js";

function setup(announceWaitMs = 2000) {
  const ledger = new ToolCallLedger();
  /** Sessions of thinks whose turn is under way, and whether each is inside a do block. */
  const active = new Map<string, boolean>();
  const routed: string[] = [];
  let endpoint: DoCall | null = null;
  let declared = 0;
  const shared = new SharedDoEndpoints({
    ledger,
    declare: async (call) => {
      endpoint = call;
      declared++;
      return { server: { type: "http", name: "patchwork", url: `http://127.0.0.1/mcp/${declared}`, headers: [] }, release: async () => undefined, contacted: true } as never;
    },
    activeSessions: () => [...active].map(([sessionId, inDo]) => ({ sessionId, inDo })),
    isOurs: (call) => call.title === "patchwork_do",
    route: async (sessionId, index) => {
      routed.push(`${sessionId}:${index}`);
      return toolText(`ran ${index} for ${sessionId}`);
    },
    announceWaitMs,
  });
  const announce = (sessionId: string, toolCallId: string, update: Partial<SessionUpdate> & Record<string, unknown>) =>
    ledger.note(sessionId, { sessionUpdate: "tool_call_update", toolCallId, ...update } as SessionUpdate);
  const call = (index: number) => endpoint!(index);
  return { ledger, active, routed, shared, announce, call, declared: () => declared };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

describe("SharedDoEndpoints", () => {
  it("names the endpoint in the first session/new of a directory only; releasing a session's view keeps it", async () => {
    const { shared, declared } = setup();
    const first = await shared.forSession("/a");
    const second = await shared.forSession("/a");
    const other = await shared.forSession("/b");
    expect(first.servers).toHaveLength(1);
    expect(second.servers).toEqual([]);
    expect(other.servers).toHaveLength(1);
    expect(declared()).toBe(2);
    await first.declaration.release();
    expect((await shared.forSession("/a")).servers).toEqual([]);
    shared.forget("/a");
    expect((await shared.forSession("/a")).servers).toHaveLength(1);
  });

  it("a later session of the directory learns when the one naming the endpoint is answered, or failed (then the next names it again)", async () => {
    const { shared } = setup();
    const first = await shared.forSession("/a");
    const second = await shared.forSession("/a");
    expect(first.settle).not.toBeNull();
    expect(second.settle).toBeNull();
    let registered: boolean | null = null;
    void second.registered.then((ok) => (registered = ok));
    await new Promise((r) => setTimeout(r, 20));
    expect(registered).toBeNull();
    first.settle!(true);
    expect(await second.registered).toBe(true);
    // The naming session/new failed: those waiting learn it, and the next session names the endpoint again.
    const third = await shared.forSession("/b");
    const fourth = await shared.forSession("/b");
    shared.forget("/b");
    expect(await fourth.registered).toBe(false);
    expect(third.servers).toHaveLength(1);
    expect((await shared.forSession("/b")).servers).toHaveLength(1);
  });

  it("a call that reaches us before its announcement waits for it, then goes to the announcing think", async () => {
    const { shared, active, routed, announce, call } = setup();
    await shared.forSession("/a");
    active.set("outer", false);
    const result = call(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(routed).toEqual([]);
    announce("outer", "c1", { sessionUpdate: "tool_call", title: "patchwork_do", status: "pending", rawInput: {} });
    await new Promise((r) => setTimeout(r, 50));
    expect(routed).toEqual([]); // no block number yet
    announce("outer", "c1", { status: "in_progress", rawInput: { number: 0 } });
    expect(text(await result)).toBe("ran 0 for outer");
    expect(routed).toEqual(["outer:0"]);
  });

  it("a nested think: the outer call is matched already, the inner think's call of the same block goes to the inner think", async () => {
    const { shared, active, routed, announce, call } = setup();
    await shared.forSession("/a");
    active.set("outer", false);
    announce("outer", "c1", { title: "patchwork_do", status: "in_progress", rawInput: { number: 0 } });
    await call(0);
    active.set("outer", true); // running the do block that holds the inner think
    active.set("inner", false);
    announce("inner", "c2", { title: "patchwork_do", status: "in_progress", rawInput: { number: 0 } });
    await call(0);
    expect(routed).toEqual(["outer:0", "inner:0"]);
  });

  it("another tool with the block's number, a finished call, an inactive session: never matched", async () => {
    const { shared, active, routed, announce, call } = setup(300);
    await shared.forSession("/a");
    active.set("s1", false);
    announce("s1", "bash", { title: "bash", status: "in_progress", rawInput: { number: 0 } });
    announce("s1", "old", { title: "patchwork_do", status: "completed", rawInput: { number: 0 } });
    announce("gone", "c9", { title: "patchwork_do", status: "in_progress", rawInput: { number: 0 } });
    const result = await call(0);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no think announced this call of do\(0\)/);
    expect(routed).toEqual([]);
  });

  it("two thinks with an unmatched call of the same block at once: an error, never a guess", async () => {
    const { shared, active, routed, announce, call } = setup();
    await shared.forSession("/a");
    active.set("w1", false).set("w2", false);
    announce("w1", "a", { title: "patchwork_do", status: "in_progress", rawInput: { number: 1 } });
    announce("w2", "b", { title: "patchwork_do", status: "in_progress", rawInput: { number: 1 } });
    const result = await call(1);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/cannot tell which of 2 thinks running at once called do\(1\)/);
    expect(routed).toEqual([]);
  });

  it("one announcement, but another think free at once (workers): the call waits, and runs once the other is inside a do", async () => {
    const { shared, active, routed, announce, call } = setup();
    await shared.forSession("/a");
    active.set("w1", false).set("w2", false);
    announce("w1", "a", { title: "patchwork_do", status: "in_progress", rawInput: { number: 0 } });
    const result = call(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(routed).toEqual([]); // w2's own call of do(0) may be on its way, its announcement not yet here
    active.set("w2", true);
    announce("w2", "other", { title: "bash", status: "in_progress", rawInput: { command: "ls" } }); // any update wakes the wait
    expect(text(await result)).toBe("ran 0 for w1");
  });

  it("one announcement and another think that stays free: an error after the wait, never a guess", async () => {
    const { shared, active, routed, announce, call } = setup(300);
    await shared.forSession("/a");
    active.set("w1", false).set("w2", false);
    announce("w1", "a", { title: "patchwork_do", status: "in_progress", rawInput: { number: 0 } });
    const result = await call(0);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/cannot tell which of 2 thinks running at once called do\(0\)/);
    expect(routed).toEqual([]);
  });
});
