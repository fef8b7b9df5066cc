// Heap of `patchwork mcp --http` sessions at their bounds (docs/security.md, "Servers"): 1,000
// initialize requests with ~60 KiB of capabilities each; at most 100 sessions are kept.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveMcp } from "@patchwork/serve";

const dir = mkdtempSync(join(tmpdir(), "pw-sessions-"));
writeFileSync(join(dir, "s.pw"), "@skill echo\nskill echo(value: string) { print(value) }\n");
const h = await serveMcp({ paths: ["s.pw"], cwd: dir, http: { port: 0 }, watch: false });
const heap = () => (global.gc?.(), process.memoryUsage().heapUsed);
const before = heap();
const blob = "c".repeat(60 * 1024);
for (let i = 0; i < 1000; i++) {
  const body = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: { experimental: { blob: { data: blob } } }, clientInfo: { name: "c", version: "1" } } };
  const r = await fetch(h.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
  await r.text();
}
const after = heap();
console.log(`1000 initialize requests of 60 KiB: heap +${((after - before) / 1e6).toFixed(1)} MB with the sessions kept (at most 100)`);
await h.close();
