// `patchwork acp` against a hostile or buggy editor: a line too large or too deep, or an invalid
// request, is answered with an error carrying its id and said on stderr; the session's state
// (a Patchwork program's variables) survives and the proxy keeps serving.
import { afterEach, describe, expect, it } from "vitest";
import { scriptedAgent, scratch } from "./helpers.js";
import { nested, RawPeer } from "./raw-peer.js";

let peer: RawPeer | null = null;
afterEach(async () => {
  await peer?.close();
  peer = null;
});

/** A proxy with an initialized session whose program set `kept = 41`; returns the session id. */
async function started(): Promise<{ p: RawPeer; sessionId: string }> {
  const agent = scriptedAgent({ prompts: [{ steps: [{ reply: "passed" }] }] });
  const p = (peer = new RawPeer(["acp", "--agent", agent], scratch));
  await p.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  await p.response(0);
  await p.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: scratch, mcpServers: [] } });
  const sessionId = ((await p.response(1)).result as { sessionId: string }).sessionId;
  await p.send(prompt(2, sessionId, "{ var kept = 41 }"));
  expect((await p.response(2)).result).toMatchObject({ stopReason: "end_turn" });
  return { p, sessionId };
}

const prompt = (id: number, sessionId: string, text: string) => ({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text }] } });

/** The session still has its program's state: `kept + 1` printed. */
async function stillServes(p: RawPeer, sessionId: string, id: number): Promise<void> {
  await p.send(prompt(id, sessionId, "{ print(kept + 1) }"));
  expect((await p.response(id)).result).toMatchObject({ stopReason: "end_turn" });
  const chunks = p.messages.filter((m) => m.method === "session/update").map((m) => JSON.stringify(m.params));
  expect(chunks.some((c) => c.includes('"text":"42\\n"'))).toBe(true);
}

describe("patchwork acp: hostile input is answered, the proxy keeps serving", () => {
  it("a 100 MB session/prompt line: an error naming the limit, the session's state kept", async () => {
    const { p, sessionId } = await started();
    const big = `{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"${"b".repeat(100 * 1024 * 1024)}"}]}}`;
    await p.send(big);
    const r = await p.response(9, 90_000);
    expect(r.error).toEqual({ code: -32600, message: `message too large: ${big.length} bytes, the limit is 16 MiB` });
    expect(p.stderr).toMatch(/patchwork acp: refused a message id 9: message too large/);
    await stillServes(p, sessionId, 10);
  }, 120_000);

  it("a prompt nested 5,000 levels deep: an error naming the depth limit", async () => {
    const { p, sessionId } = await started();
    await p.send(`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"x","_meta":${nested(5000)}}]}}`);
    expect((await p.response(9)).error).toEqual({ code: -32600, message: "message nested too deeply: 5004 levels, the limit is 256" });
    await stillServes(p, sessionId, 10);
  });

  it("invalid requests with an id get -32600/-32602 with that id", async () => {
    const { p, sessionId } = await started();
    await p.send({ jsonrpc: "2.0", id: 11, method: 5 });
    await p.send({ jsonrpc: "1.0", id: 12, method: "session/new", params: { cwd: scratch, mcpServers: [] } });
    await p.send({ jsonrpc: "2.0", id: 13, method: "session/prompt", params: "x" });
    await p.send({ jsonrpc: "2.0", id: 14, method: "session/prompt", params: null });
    expect((await p.response(11)).error).toEqual({ code: -32600, message: 'invalid request: "method" must be a string' });
    expect((await p.response(12)).error).toEqual({ code: -32600, message: 'invalid request: "jsonrpc" must be "2.0", not "1.0"' });
    expect((await p.response(13)).error).toEqual({ code: -32602, message: 'invalid request: "params" of session/prompt must be an object or an array, not string' });
    expect((await p.response(14)).error).toEqual({ code: -32602, message: 'invalid request: "params" of session/prompt must be an object or an array, not null' });
    await stillServes(p, sessionId, 15);
  });
});
