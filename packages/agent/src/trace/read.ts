/**
 * Reads a trace file back (`patchwork trace`): every line is parsed and validated against the
 * schema; anything wrong is a `TraceError` naming the file and line, never a stack.
 */
import { traceRecord, type TraceRecord } from "./schema.js";

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceError";
  }
}

export function readTrace(text: string, fileName: string): TraceRecord[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const records: TraceRecord[] = [];
  lines.forEach((line, i) => {
    const where = `${fileName}:${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      const last = i === lines.length - 1 && !text.endsWith("\n");
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
    if (i === 0 && result.data.type !== "run-start") throw new TraceError(`${where}: a trace starts with a run-start record, not ${result.data.type}`);
    records.push(result.data);
  });
  if (records.length === 0) throw new TraceError(`${fileName}: the trace is empty`);
  return records;
}
