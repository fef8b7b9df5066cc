/**
 * A byte scanner for one JSON-RPC message as it arrives: its nesting depth (counted outside
 * strings) and its top-level `id`, read in one linear pass without parsing the message, so that
 * a message too large or too deep to parse can still be answered with its id (an MCP client
 * often writes `id` after `params`).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** Longest `id` value kept (a longer one is answered with id null). */
const MAX_ID_BYTES = 256;

export class MessageScanner {
  /** The deepest nesting seen so far. */
  maxDepth = 0;
  private depth = 0;
  private inString = false;
  private escape = false;
  /** The text of the top-level string being read (the first 3 bytes: enough to tell `id`). */
  private key = "";
  private keyLength = 0;
  private lastKey: string | null = null;
  private capture: number[] | null = null;
  private idText: string | null = null;

  /** Scans `bytes[start, end)`. */
  push(bytes: Uint8Array, start = 0, end = bytes.length): void {
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      if (this.inString) {
        if (this.capture) this.keep(b);
        if (this.escape) this.escape = false;
        else if (b === BACKSLASH) this.escape = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.depth === 1 && !this.capture) this.lastKey = this.keyLength === 2 ? this.key : null;
        } else if (this.depth === 1 && !this.capture && ++this.keyLength <= 2) this.key += String.fromCharCode(b);
        continue;
      }
      switch (b) {
        case QUOTE:
          this.inString = true;
          this.key = "";
          this.keyLength = 0;
          if (this.capture) this.keep(b);
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          if (++this.depth > this.maxDepth) this.maxDepth = this.depth;
          if (this.capture) this.keep(b);
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          if (this.depth === 1 && this.capture) this.endCapture();
          else if (this.capture) this.keep(b);
          this.depth--;
          break;
        case COLON:
          if (this.depth === 1 && !this.capture && this.lastKey === "id") this.capture = [];
          else if (this.capture) this.keep(b);
          this.lastKey = null;
          break;
        case COMMA:
          if (this.depth === 1 && this.capture) this.endCapture();
          else if (this.capture) this.keep(b);
          this.lastKey = null;
          break;
        case 0x20:
        case 0x09:
        case 0x0a:
        case 0x0d:
          break;
        default:
          if (this.capture) this.keep(b);
      }
    }
  }

  private keep(b: number): void {
    if (this.capture!.length <= MAX_ID_BYTES) this.capture!.push(b);
  }

  private endCapture(): void {
    this.idText = this.capture!.length <= MAX_ID_BYTES ? Buffer.from(this.capture!).toString("utf8") : null;
    this.capture = null;
  }

  /** The top-level `id` when it is a string or a number, else null (JSON-RPC's id of an unreadable request). */
  id(): string | number | null {
    if (this.idText === null) return null;
    try {
      const id: unknown = JSON.parse(this.idText);
      return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
    } catch {
      return null;
    }
  }
}
