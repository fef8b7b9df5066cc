// A minimal LSP client over a child process's stdio (Content-Length framing, JSON-RPC 2.0):
// used by the language-server tests and the benchmark to drive `patchwork lsp` for real.
import { spawn } from "node:child_process";

export class LspClient {
  constructor(command, args, options = {}) {
    this.child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], ...options });
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    this.notifications = [];
    /** Every message from the server in order of arrival: `response <id>` or `<method> <uri>`. */
    this.arrivals = [];
    this.stderr = "";
    this.stdoutNoise = "";
    let buf = Buffer.alloc(0);
    this.child.stderr.on("data", (d) => (this.stderr += d));
    this.child.stdout.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const head = buf.indexOf("\r\n\r\n");
        if (head < 0) return;
        const header = buf.subarray(0, head).toString("ascii");
        const m = /Content-Length: (\d+)/i.exec(header);
        if (!m) {
          // Anything on stdout that is not a framed message breaks the protocol: record it.
          this.stdoutNoise += buf.toString();
          buf = Buffer.alloc(0);
          return;
        }
        const len = Number(m[1]);
        if (buf.length < head + 4 + len) return;
        const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString("utf8"));
        buf = buf.subarray(head + 4 + len);
        this.dispatch(msg);
      }
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
  }

  dispatch(msg) {
    this.arrivals.push(msg.method === undefined ? `response ${msg.id}` : `${msg.method} ${msg.params?.uri ?? ""}`);
    if (msg.id !== undefined && (msg.result !== undefined || msg.error !== undefined) && msg.method === undefined) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (p) msg.error ? p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code })) : p.resolve(msg.result);
      return;
    }
    if (msg.id !== undefined && msg.method !== undefined) {
      // A request from the server (e.g. client/registerCapability): answer with null.
      this.write({ jsonrpc: "2.0", id: msg.id, result: null });
      return;
    }
    this.notifications.push(msg);
    for (const l of [...this.listeners]) l(msg);
  }

  write(msg) {
    const body = Buffer.from(JSON.stringify(msg), "utf8");
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  request(method, params) {
    const id = (this.lastId = this.nextId++);
    const p = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.write({ jsonrpc: "2.0", id, method, params });
    return p;
  }

  notify(method, params) {
    this.write({ jsonrpc: "2.0", method, params });
  }

  /**
   * The first notification matching `pred` among those received from index `since` on: already
   * received, or the next to arrive. Take `since` (`client.notifications.length`) *before* sending
   * the message that causes the notification; there is no default, because "from now" misses a
   * notification that arrived while the caller awaited something else.
   */
  waitFor(pred, since, timeoutMs = 20000) {
    if (!Number.isInteger(since) || since < 0) throw new TypeError("waitFor(pred, since, timeoutMs): since must be client.notifications.length taken before the message was sent");
    for (const n of this.notifications.slice(since)) if (pred(n)) return Promise.resolve(n);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== listener);
        reject(new Error(`timed out waiting for a notification; stderr: ${this.stderr}`));
      }, timeoutMs);
      const listener = (n) => {
        if (!pred(n)) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve(n);
      };
      this.listeners.push(listener);
    });
  }

  async initialize(rootUri = null) {
    const r = await this.request("initialize", { processId: process.pid, rootUri, capabilities: {} });
    this.notify("initialized", {});
    return r;
  }

  async shutdown() {
    await this.request("shutdown", null);
    this.notify("exit", null);
    return this.exited;
  }
}
