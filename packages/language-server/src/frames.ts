/**
 * `patchwork lsp`'s input read through the servers' checks (`@patchwork/serve/guard`, as
 * `mcp` and `acp` read theirs) before vscode-languageserver sees it: Content-Length frames
 * re-framed one by one. A header without a valid Content-Length (`hello world`, `abc`) is said on
 * stderr and skipped, reading on from the next `Content-Length:`; a frame over the size limit is
 * skipped without being kept and answered with its id; so are messages too deep or not valid
 * JSON-RPC; and a request before `initialize` gets -32002, as the LSP asks.
 */
import { PassThrough, type Readable } from "node:stream";
import { bytesShown, check, DEFAULT_LIMITS, errorResponse, MessageScanner, tooLarge, type Limits, type Verdict } from "@patchwork/serve/guard";

export interface FrameGuardOptions {
  /** Sends a response to the client (through the connection's writer). */
  reply: (response: object) => void;
  /** Says on stderr what was refused or skipped. */
  log: (message: string) => void;
  limits?: Limits;
}

/** LSP's "server not initialized" error code. */
export const SERVER_NOT_INITIALIZED = -32002;
/** The longest header block read (real ones are under 100 bytes). */
const MAX_HEADER_BYTES = 8 * 1024;
const HEADER_END = Buffer.from("\r\n\r\n");

export class FrameGuard {
  private header = Buffer.alloc(0);
  /** Bytes of the frame's content still to read, or -1 while reading a header. */
  private left = -1;
  private length = 0;
  private chunks: Buffer[] = [];
  private scanner = new MessageScanner();
  private initialized = false;

  constructor(
    private readonly options: FrameGuardOptions & { limits: Limits },
    private readonly pass: (frame: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    while (chunk.length > 0) {
      if (this.left < 0) chunk = this.readHeader(chunk);
      else chunk = this.readContent(chunk);
    }
  }

  private readHeader(chunk: Buffer): Buffer {
    const block = Buffer.concat([this.header, chunk]);
    const end = block.indexOf(HEADER_END);
    if (end < 0) {
      if (block.length > MAX_HEADER_BYTES) {
        this.options.log(`skipped ${block.length - 3} bytes that are no LSP header (no empty line within ${bytesShown(MAX_HEADER_BYTES)})`);
        this.header = Buffer.from(block.subarray(block.length - 3));
      } else this.header = block;
      return Buffer.alloc(0);
    }
    this.header = Buffer.alloc(0);
    this.startFrame(block.subarray(0, end).toString("latin1"));
    return block.subarray(end + HEADER_END.length);
  }

  /** Reads a header block: from its last `Content-Length:` on (what comes before is skipped, said on stderr). */
  private startFrame(text: string): void {
    const at = text.search(/content-length:[^\r\n]*$/im);
    const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
    if (at < 0) return this.options.log(`skipped a frame header without Content-Length: ${shown}`);
    if (at > 0) this.options.log(`skipped ${at} bytes before a Content-Length header`);
    const m = /^content-length:[ \t]*(\d{1,15})[ \t]*$/im.exec(text.slice(at));
    if (!m) return this.options.log(`skipped a frame header with an invalid Content-Length: ${shown}`);
    this.length = this.left = Number(m[1]);
    if (this.left === 0) this.endFrame();
  }

  private readContent(chunk: Buffer): Buffer {
    const take = Math.min(this.left, chunk.length);
    const part = chunk.subarray(0, take);
    this.scanner.push(part);
    if (this.length <= this.options.limits.maxBytes) this.chunks.push(part);
    this.left -= take;
    if (this.left === 0) this.endFrame();
    return chunk.subarray(take);
  }

  private endFrame(): void {
    const { scanner, chunks, length } = this;
    this.left = -1;
    this.chunks = [];
    this.scanner = new MessageScanner();
    const limits = this.options.limits;
    if (length > limits.maxBytes) return this.refuse(tooLarge(scanner, length, limits));
    const content = Buffer.concat(chunks);
    const verdict = check(content.toString("utf8"), scanner, limits);
    if (!verdict.ok) return this.refuse(verdict);
    const m = verdict.message;
    if (!this.initialized && m.method !== "initialize" && m.method !== "exit" && typeof m.method === "string") {
      if (!("id" in m)) return this.options.log(`dropped the notification ${m.method.slice(0, 60)} before initialize`);
      this.options.log(`refused the request ${m.method.slice(0, 60)} before initialize`);
      return this.options.reply(errorResponse(m.id as string | number, SERVER_NOT_INITIALIZED, `server not initialized: ${m.method.slice(0, 60)} before initialize`));
    }
    if (m.method === "initialize") this.initialized = true;
    this.pass(Buffer.concat([Buffer.from(`Content-Length: ${content.length}\r\n\r\n`, "ascii"), content]));
  }

  private refuse(verdict: Verdict & { ok: false }): void {
    this.options.log(verdict.why);
    if (verdict.reply) this.options.reply(verdict.reply);
  }
}

/** `input` with every frame checked (see the file comment). */
export function guardedFrames(input: Readable, options: FrameGuardOptions): Readable {
  const out = new PassThrough();
  const guard = new FrameGuard({ ...options, limits: options.limits ?? { ...DEFAULT_LIMITS, nullParams: true } }, (frame) => {
    if (!out.write(frame)) {
      input.pause();
      out.once("drain", () => input.resume());
    }
  });
  input.on("data", (chunk: Buffer) => guard.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  input.on("end", () => out.end());
  input.on("error", (error) => out.destroy(error));
  return out;
}
