// A hostile or buggy client of a Patchwork server process: raw bytes in, JSON-RPC messages out
// (newline-delimited for `mcp`/`acp`, Content-Length frames for `lsp`), and its stderr and exit.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { tmpdir } from "node:os";
import { patchworkBin } from "./mcp-helpers.js";

export type Message = { id?: unknown; result?: unknown; error?: { code: number; message: string }; method?: string; params?: unknown };

export class RawPeer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Message[] = [];
  stderr = "";
  exit: Promise<number | null>;
  private out = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  constructor(
    args: string[],
    cwd: string,
    private readonly framing: "lines" | "lsp" = "lines",
    env: Record<string, string> = {},
  ) {
    this.child = spawn(process.execPath, [patchworkBin, ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env } });
    this.child.stderr.on("data", (c: Buffer) => (this.stderr += c.toString("utf8")));
    this.child.stdout.on("data", (c: Buffer) => {
      this.out = Buffer.concat([this.out, c]);
      this.parse();
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stdin.on("error", () => undefined);
    this.exit = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  private parse(): void {
    for (;;) {
      if (this.framing === "lines") {
        const nl = this.out.indexOf(10);
        if (nl < 0) return;
        const line = this.out.subarray(0, nl).toString("utf8");
        this.out = this.out.subarray(nl + 1);
        if (line.trim() !== "") this.messages.push(JSON.parse(line) as Message);
      } else {
        const end = this.out.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/Content-Length: (\d+)/i.exec(this.out.subarray(0, end).toString("ascii"))![1]);
        if (this.out.length < end + 4 + length) return;
        this.messages.push(JSON.parse(this.out.subarray(end + 4, end + 4 + length).toString("utf8")) as Message);
        this.out = this.out.subarray(end + 4 + length);
      }
    }
  }

  /** Writes raw bytes (a message's framing is the caller's). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.stdin.write(data)) resolve();
      else this.child.stdin.once("drain", () => resolve());
    });
  }

  /** One message, framed. */
  send(message: object | string): Promise<void> {
    const text = typeof message === "string" ? message : JSON.stringify(message);
    if (this.framing === "lines") return this.write(text + "\n");
    return this.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  }

  /** The response to request `id` (waits up to `ms`). */
  async response(id: unknown, ms = 20_000): Promise<Message> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.messages.find((m) => m.id === id && m.method === undefined);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response to id ${JSON.stringify(id)} within ${ms} ms; stderr:\n${this.stderr.slice(0, 2000)}`);
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), new Promise((r) => setTimeout(r, Math.min(left, 200))), this.exit]);
    }
  }

  /** Waits until stderr matches. */
  async stderrMatching(re: RegExp, ms = 20_000): Promise<string> {
    const deadline = Date.now() + ms;
    while (!re.test(this.stderr)) {
      if (Date.now() > deadline) throw new Error(`stderr never matched ${re}:\n${this.stderr.slice(0, 2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.stderr;
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    const code = await this.exit;
    clearTimeout(timer);
    return code;
  }
}

/** The JSON text `[[[…"x"…]]]`, nested `depth` levels (JSON.stringify of it would overflow the stack). */
export function nested(depth: number): string {
  return "[".repeat(depth) + '"x"' + "]".repeat(depth);
}
