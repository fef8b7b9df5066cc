// `patchwork mcp` over stdio against a hostile or buggy client: every message too large, too
// deep or not a valid JSON-RPC request is answered with an error carrying its id, said on stderr,
// and the server keeps serving (the calls in flight finish).
import { afterEach, describe, expect, it } from "vitest";
import { folderWith } from "./mcp-helpers.js";
import { nested, RawPeer } from "./raw-peer.js";

const skills = folderWith({ "s.pw": `@skill echo\nskill echo(value: string) { print(value) }\n@skill add\nskill add(a: number, b: number): number { return a + b }\n@skill shape\nskill shape(x: object) { print("ok") }\n` });
const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
let peer: RawPeer | null = null;

async function started(): Promise<RawPeer> {
  peer = new RawPeer(["mcp", "s.pw"], skills);
  await peer.send(initialize);
  await peer.response(0);
  await peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return peer;
}

const call = (id: number, name: string, args: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

afterEach(async () => {
  await peer?.close();
  peer = null;
});

describe("patchwork mcp (stdio): hostile input is answered, the server keeps serving", () => {
  it("an argument nested 5,000 levels: an error naming the depth limit; the next call works", async () => {
    const p = await started();
    await p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shape","arguments":{"x":{"deep":${nested(5000)}}}}}`);
    const r = await p.response(1);
    expect(r.error).toEqual({ code: -32600, message: "message nested too deeply: 5004 levels, the limit is 256" });
    await p.send(call(2, "echo", { value: "still here" }));
    expect(JSON.stringify((await p.response(2)).result)).toContain("still here");
    expect(p.stderr).toMatch(/patchwork mcp: refused a message id 1: message nested too deeply/);
  });

  it("a 50 MB line with its id after the params: an error naming the size limit; a call in flight finishes", async () => {
    const p = await started();
    await p.send(call(1, "echo", { value: "before" }));
    const big = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"value":"${"a".repeat(50 * 1024 * 1024)}"}},"id":7}`;
    await p.send(big);
    const r = await p.response(7, 60_000);
    expect(r.error!.code).toBe(-32600);
    expect(r.error!.message).toBe(`message too large: ${big.length} bytes, the limit is 16 MiB`);
    expect(JSON.stringify((await p.response(1)).result)).toContain("before");
    await p.send(call(2, "echo", { value: "after" }));
    expect(JSON.stringify((await p.response(2)).result)).toContain("after");
  }, 90_000);

  it("a 12 MB line under the limit is served (the SDK's own 10 MiB buffer no longer ends the server)", async () => {
    const p = await started();
    await p.send(call(1, "shape", { x: { blob: "b".repeat(12 * 1024 * 1024) } }));
    expect(JSON.stringify((await p.response(1, 60_000)).result)).toContain("ok");
    await p.send(call(2, "echo", { value: "after" }));
    expect(JSON.stringify((await p.response(2)).result)).toContain("after");
  }, 90_000);

  it("invalid requests with an id get -32600/-32602 with that id", async () => {
    const p = await started();
    await p.send({ jsonrpc: "2.0", id: 11, method: 5 });
    await p.send({ jsonrpc: "1.0", id: 12, method: "tools/list" });
    await p.send({ jsonrpc: "2.0", id: 13, method: "tools/call", params: "x" });
    await p.send({ jsonrpc: "2.0", id: "fourteen", method: "tools/list", params: null });
    await p.send(`{"jsonrpc":"2.0","id":15,"method":"tools/list"`);
    expect((await p.response(11)).error).toEqual({ code: -32600, message: 'invalid request: "method" must be a string' });
    expect((await p.response(12)).error).toEqual({ code: -32600, message: 'invalid request: "jsonrpc" must be "2.0", not "1.0"' });
    expect((await p.response(13)).error).toEqual({ code: -32602, message: 'invalid request: "params" of tools/call must be an object or an array, not string' });
    expect((await p.response("fourteen")).error).toEqual({ code: -32602, message: 'invalid request: "params" of tools/list must be an object or an array, not null' });
    expect((await p.response(15)).error!.code).toBe(-32700);
    await p.send(call(2, "echo", { value: "after" }));
    expect(JSON.stringify((await p.response(2)).result)).toContain("after");
  });

  it("a __proto__ argument is named as an unknown parameter, whatever its value", async () => {
    const p = await started();
    await p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":"v","__proto__":{"x":1}}}}`);
    await p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"v","__proto__":"s"}}}`);
    for (const id of [1, 2])
      expect((await p.response(id)).result).toEqual({ content: [{ type: "text", text: "echo has no parameter '__proto__': echo(value: string)" }], isError: true });
  });

  it("a number result that is not finite is a tool error saying so", async () => {
    const p = await started();
    await p.send(call(1, "add", { a: 1e308, b: 1e308 }));
    expect((await p.response(1)).result).toEqual({
      content: [{ type: "text", text: "add returned a number that is not finite (Infinity, -Infinity or NaN): JSON cannot carry it\n" }],
      isError: true,
    });
    await p.send(call(2, "add", { a: 1, b: 2 }));
    expect((await p.response(2)).result).toMatchObject({ structuredContent: { value: 3 } });
  });
});
