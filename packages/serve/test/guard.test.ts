// The servers' checks of a JSON-RPC message (src/guard): the byte scanner's depth and top-level
// id (read in chunks of any size, strings and escapes skipped), the size limit, and JSON-RPC's shape.
import { describe, expect, it } from "vitest";
import { check, checkShape, DEFAULT_LIMITS, LineGuard, MessageScanner, type Verdict } from "../dist/guard/index.js";

function scanned(text: string, chunk = 3): MessageScanner {
  const s = new MessageScanner();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) s.push(bytes, i, Math.min(bytes.length, i + chunk));
  return s;
}

describe("MessageScanner", () => {
  it("finds the top-level id wherever it is, not an id nested or inside a string", () => {
    expect(scanned(`{"params":{"id":1,"x":"\\"id\\":2"},"id":"abc"}`).id()).toBe("abc");
    expect(scanned(`{"id" : 42 , "method":"m"}`, 1).id()).toBe(42);
    expect(scanned(`{"method":"m","params":{"id":5}}`).id()).toBe(null);
    expect(scanned(`{"id":{"x":1}}`).id()).toBe(null);
    expect(scanned(`{"idx":3}`).id()).toBe(null);
    expect(scanned(`{"id":"${"z".repeat(300)}"}`).id()).toBe(null);
  });

  it("counts nesting outside strings", () => {
    expect(scanned(`{"a":[[{"b":"[[[[{{{{"}]]]}`).maxDepth).toBe(4);
    expect(scanned("[".repeat(10000) + "]".repeat(10000), 4096).maxDepth).toBe(10000);
  });
});

describe("check", () => {
  const verdict = (text: string): Verdict => check(text, scanned(text), DEFAULT_LIMITS);
  it("passes requests, notifications and responses", () => {
    expect(verdict(`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`).ok).toBe(true);
    expect(verdict(`{"jsonrpc":"2.0","method":"n","params":[1]}`).ok).toBe(true);
    expect(verdict(`{"jsonrpc":"2.0","id":1,"result":null}`).ok).toBe(true);
  });

  it("answers a bad request with its id; a bad notification is only logged", () => {
    expect(verdict(`{"jsonrpc":"2.0","id":3,"method":"m","params":7}`)).toMatchObject({ ok: false, reply: { id: 3, error: { code: -32602 } } });
    expect(verdict(`{"jsonrpc":"2.0","method":"m","params":null}`)).toMatchObject({ ok: false, reply: null, why: expect.stringMatching(/^refused a notification: "params"/) });
    expect(verdict(`[{"jsonrpc":"2.0","id":1,"method":"m"}]`)).toMatchObject({ ok: false, reply: { id: null, error: { code: -32600 } } });
    expect(verdict(`{"jsonrpc":"2.0","id":4,"method":"m"`)).toMatchObject({ ok: false, reply: { id: 4, error: { code: -32700 } } });
    expect(checkShape({ jsonrpc: "2.0", id: true, method: "m" })).toMatchObject({ ok: false, reply: { id: null, error: { code: -32600, message: 'invalid request: "id" must be a string or a number' } } });
  });
});

describe("LineGuard", () => {
  it("refuses a line over the limit without keeping it, answering with its id; the next line passes", () => {
    const verdicts: Verdict[] = [];
    const guard = new LineGuard({ maxBytes: 100, maxDepth: 8 }, (v) => verdicts.push(v));
    guard.push(Buffer.from(`{"jsonrpc":"2.0","method":"m","params":{"v":"${"x".repeat(200)}`));
    guard.push(Buffer.from(`"},"id":9}\n{"jsonrpc":"2.0","id":10,"method":"m"}\n{"jsonrpc":"2.0","id":11,"params":[[[[[[[[[1]]]]]]]]],"method":"m"}`));
    guard.end();
    expect(verdicts).toMatchObject([
      { ok: false, reply: { id: 9, error: { code: -32600, message: "message too large: 255 bytes, the limit is 100 bytes" } } },
      { ok: true, message: { id: 10 } },
      { ok: false, reply: { id: 11, error: { code: -32600, message: "message nested too deeply: 10 levels, the limit is 8" } } },
    ]);
  });
});
