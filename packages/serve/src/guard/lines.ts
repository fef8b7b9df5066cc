/**
 * Newline-delimited JSON-RPC (`patchwork mcp` over stdio, `patchwork acp`) read through the
 * checks of jsonrpc.ts: the returned stream carries only the messages that pass, one per line,
 * for the SDK to read; a refused request is answered through `reply` and the server keeps
 * serving. A line over the size limit is scanned as it passes (for its id) but never kept.
 */
import { PassThrough, type Readable } from "node:stream";
import { check, DEFAULT_LIMITS, tooLarge, type ErrorResponse, type Limits, type Verdict } from "./jsonrpc.js";
import { MessageScanner } from "./scan.js";

export interface GuardOptions {
  /** Writes a response (an error, or `inspect`'s answer) to the client, as one JSON line. */
  reply: (response: object) => void;
  /** Says on stderr what was refused. */
  log: (message: string) => void;
  limits?: Limits;
  /** A server's own check of a message that passed: a response to send instead of passing it on, or null. */
  inspect?: (message: Record<string, unknown>) => object | null;
}

const NEWLINE = 0x0a;

/** Splits bytes into lines, each checked as it arrives. */
export class LineGuard {
  private chunks: Buffer[] = [];
  private size = 0;
  private scanner = new MessageScanner();

  constructor(
    private readonly limits: Limits,
    private readonly onVerdict: (verdict: Verdict, line: Buffer | null) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk, start, end);
      if (nl < 0) break;
      this.endLine();
      start = nl + 1;
    }
  }

  /** The last line, when the input ends without a newline. */
  end(): void {
    if (this.size > 0) this.endLine();
  }

  private take(chunk: Buffer, start: number, end: number): void {
    if (end === start) return;
    this.scanner.push(chunk, start, end);
    this.size += end - start;
    if (this.size <= this.limits.maxBytes) this.chunks.push(chunk.subarray(start, end));
    else this.chunks = [];
  }

  private endLine(): void {
    const size = this.size;
    const chunks = this.chunks;
    const scanner = this.scanner;
    this.chunks = [];
    this.size = 0;
    this.scanner = new MessageScanner();
    if (size > this.limits.maxBytes) return this.onVerdict(tooLarge(scanner, size, this.limits), null);
    const line = Buffer.concat(chunks);
    const text = line.toString("utf8").trim();
    if (text === "") return;
    this.onVerdict(check(text, scanner, this.limits), line);
  }
}

/** `input` with every refused message answered or dropped (see the file comment). */
export function guardedLines(input: Readable, options: GuardOptions): Readable {
  const out = new PassThrough();
  const guard = new LineGuard(options.limits ?? DEFAULT_LIMITS, (verdict, line) => {
    if (verdict.ok) {
      const answer = options.inspect?.(verdict.message) ?? null;
      if (answer !== null) return options.reply(answer as ErrorResponse);
      if (!out.write(Buffer.concat([line!, Buffer.from("\n")]))) {
        input.pause();
        out.once("drain", () => input.resume());
      }
      return;
    }
    options.log(verdict.why);
    if (verdict.reply) options.reply(verdict.reply);
  });
  input.on("data", (chunk: Buffer) => guard.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  input.on("end", () => {
    guard.end();
    out.end();
  });
  input.on("error", (error) => out.destroy(error));
  input.on("close", () => {
    if (!out.writableEnded) out.end();
  });
  return out;
}
