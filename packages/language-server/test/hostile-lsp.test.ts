// `patchwork lsp` against a hostile or buggy client: frames without a valid Content-Length are
// said on stderr and skipped (the server reads on and keeps answering), frames too large or too
// deep and invalid JSON-RPC requests are answered with their id, and requests before
// `initialize` get -32002.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nested, RawPeer } from "../../serve/test/raw-peer.js";

const dir = mkdtempSync(join(tmpdir(), "pw-hostile-lsp-"));
let peer: RawPeer | null = null;
afterEach(async () => {
  await peer?.close();
  peer = null;
});

const initialize = (id: number) => ({ jsonrpc: "2.0", id, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
const symbols = (id: number) => ({ jsonrpc: "2.0", id, method: "textDocument/documentSymbol", params: { textDocument: { uri: "file:///nowhere.pw" } } });

async function started(): Promise<RawPeer> {
  const p = (peer = new RawPeer(["lsp", "--stdio"], dir, "lsp"));
  await p.send(initialize(0));
  expect((await p.response(0)).result).toBeTruthy();
  await p.send({ jsonrpc: "2.0", method: "initialized", params: {} });
  return p;
}

describe("patchwork lsp: hostile framing and input", () => {
  it("a frame without Content-Length is said on stderr and skipped; the server keeps answering", async () => {
    const p = (peer = new RawPeer(["lsp", "--stdio"], dir, "lsp"));
    await p.write("hello world\r\n\r\n");
    await p.stderrMatching(/patchwork lsp: skipped a frame header without Content-Length: "hello world"/);
    await p.send(initialize(0));
    expect((await p.response(0)).result).toBeTruthy();
  });

  it("Content-Length: abc is said and skipped; the frames after it are read", async () => {
    const p = await started();
    const body = JSON.stringify(symbols(1));
    await p.write(`Content-Length: abc\r\n\r\n${body}`);
    await p.send(symbols(2));
    await p.stderrMatching(/skipped a frame header with an invalid Content-Length: "Content-Length: abc"/);
    expect((await p.response(2)).error ?? (await p.response(2)).result).toBeDefined();
    expect(p.stderr).toMatch(/skipped \d+ bytes before a Content-Length header/);
  });

  it("a request before initialize gets -32002", async () => {
    const p = (peer = new RawPeer(["lsp", "--stdio"], dir, "lsp"));
    await p.send(symbols(1));
    expect((await p.response(1)).error).toEqual({ code: -32002, message: "server not initialized: textDocument/documentSymbol before initialize" });
    await p.send(initialize(2));
    expect((await p.response(2)).result).toBeTruthy();
  });

  it("a 20 MB frame and a frame nested 5,000 levels are answered with their id; invalid requests too", async () => {
    const p = await started();
    const big = `{"jsonrpc":"2.0","method":"workspace/symbol","params":{"query":"${"q".repeat(20 * 1024 * 1024)}"},"id":3}`;
    await p.send(big);
    expect((await p.response(3, 60_000)).error).toEqual({ code: -32600, message: `message too large: ${big.length} bytes, the limit is 16 MiB` });
    await p.send(`{"jsonrpc":"2.0","id":4,"method":"workspace/symbol","params":{"query":${nested(5000)}}}`);
    expect((await p.response(4)).error).toEqual({ code: -32600, message: "message nested too deeply: 5002 levels, the limit is 256" });
    await p.send({ jsonrpc: "2.0", id: 5, method: 5 });
    await p.send({ jsonrpc: "2.0", id: 6, method: "workspace/symbol", params: "x" });
    expect((await p.response(5)).error!.code).toBe(-32600);
    expect((await p.response(6)).error!.code).toBe(-32602);
    await p.send(symbols(7));
    await p.response(7);
  }, 90_000);
});
