/**
 * Reads a trace back (`patchwork trace`): every line is parsed and validated against the
 * schema; anything wrong is a `TraceError` naming the file and line, never a stack.
 *
 * A trace is read as a stream of lines (`TraceReader`, `readTraceFile`): a file of any size
 * is read in chunks, and each record goes to the caller as it is read, so that nothing holds
 * the whole text or every record (a 600 MB trace is one string too long for V8). A last line
 * cut off by a kill (no newline, not JSON) is, when the caller allows it, left out with a
 * warning: the rest of the trace is whole (the writer writes whole lines).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { traceRecord, type TraceRecord } from "./schema.js";

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceError";
  }
}

/** The longest line a reader takes (a record's prompt or reply may be long, not this long). */
export const MAX_TRACE_LINE = 256 * 1024 * 1024;

export interface TraceReadOptions {
  /** A last line cut off (no newline, not JSON) is left out, with `cutLastLine` set; else it is an error. */
  allowCutLastLine?: boolean;
}

export interface TraceReadSummary {
  records: number;
  /** The number of the last line, left out because it was cut off (`allowCutLastLine`). */
  cutLastLine: number | null;
}

/** Takes a trace's text in chunks of any size; hands each record, validated, to `onRecord`. */
export class TraceReader {
  private parts: string[] = [];
  private partsLength = 0;
  private line = 0;
  private records = 0;

  constructor(
    private readonly fileName: string,
    private readonly onRecord: (record: TraceRecord) => void,
    private readonly options: TraceReadOptions = {},
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf("\n", start);
      if (nl < 0) break;
      const piece = chunk.slice(start, nl);
      const text = this.parts.length > 0 ? this.parts.join("") + piece : piece;
      this.parts = [];
      this.partsLength = 0;
      this.take(text, false);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.partsLength += chunk.length - start;
      if (this.partsLength > MAX_TRACE_LINE) {
        throw new TraceError(`${this.fileName}:${this.line + 1}: a line longer than ${MAX_TRACE_LINE / 1024 / 1024} MB: not a trace record`);
      }
      this.parts.push(chunk.slice(start));
    }
  }

  /** The end of the text: its last line, if it has no newline. */
  end(): TraceReadSummary {
    let cut: number | null = null;
    if (this.parts.length > 0) {
      const text = this.parts.join("");
      this.parts = [];
      cut = this.take(text, true) ? null : this.line;
    }
    if (this.records === 0) throw new TraceError(`${this.fileName}: the trace is empty`);
    return { records: this.records, cutLastLine: cut };
  }

  /** One line; false when it is the last line, cut off, and the caller allows that. */
  private take(text: string, last: boolean): boolean {
    this.line++;
    const where = `${this.fileName}:${this.line}`;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      if (last && this.options.allowCutLastLine && this.records > 0) return false;
      const why = last ? "the line is cut off (was the run killed while writing?)" : (error as Error).message;
      throw new TraceError(`${where}: not a JSON trace record: ${why}`);
    }
    const result = traceRecord.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const field = issue.path.length > 0 ? `field ${issue.path.map(String).join(".")}: ` : "";
      const type = typeof (raw as { type?: unknown })?.type === "string" ? ` (${(raw as { type: string }).type})` : "";
      throw new TraceError(`${where}: not a valid trace record${type}: ${field}${issue.message}`);
    }
    if (this.line === 1 && result.data.type !== "run-start") throw new TraceError(`${where}: a trace starts with a run-start record, not ${result.data.type}`);
    this.records++;
    this.onRecord(result.data);
    return true;
  }
}

/** Reads a whole trace held in a string (a small one: a big trace is read with `readTraceFile`). */
export function readTrace(text: string, fileName: string, options: TraceReadOptions = {}): TraceRecord[] {
  const records: TraceRecord[] = [];
  const reader = new TraceReader(fileName, (r) => records.push(r), options);
  reader.push(text);
  reader.end();
  return records;
}

/**
 * Reads the trace file at `path` in chunks, each record to `onRecord` as it is read. File
 * errors are thrown as they come (ENOENT, EACCES…); trace errors as `TraceError`s.
 */
export function readTraceFile(path: string, onRecord: (record: TraceRecord) => void, options: TraceReadOptions = {}): TraceReadSummary {
  const reader = new TraceReader(path, onRecord, options);
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(path, "r");
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      reader.push(decoder.write(buffer.subarray(0, n)));
    }
  } finally {
    closeSync(fd);
  }
  reader.push(decoder.end());
  return reader.end();
}
