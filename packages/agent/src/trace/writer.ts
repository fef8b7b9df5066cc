/**
 * The trace writer (`--trace run.jsonl`, `runWithAgent({trace})`): turns the run's one event
 * stream (the evaluator's `PwEvent`s and the agent's `AgentEvent`s) into trace records
 * (schema.ts, docs/trace.md), one JSON line each, as the run goes.
 *
 * - Lines are buffered and written with one synchronous write at most every `flushMs`
 *   (default 100 ms), when 64 KiB have gathered, at the end, and when the process exits, so a
 *   crashed or interrupted run leaves a readable trace of all but its last moments.
 * - A write that fails (disk full, I/O error) never reaches the run: the writer warns once
 *   through `onWarning` and drops the rest of the trace.
 * - Ids tie children to parents: a think's `parent` is the `do` call (think id and `do` id)
 *   it runs inside; the same for shell commands.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { Diagnostic } from "@patchwork/parser";
import type { JsonValue, PwEvent } from "@patchwork/interpreter";
import { addUsage, emptyUsage, type UsageFigures } from "../acp/turn-record.js";
import type { RunTotals } from "../batch/totals.js";
import type { RunEvent } from "../types.js";
import { TRACE_VERSION, type TracePosition, type TraceRecord } from "./schema.js";

export interface TraceWriterOptions {
  /** Longest text kept for agent messages, thoughts, tool content, `do` output, prints (default 2000). */
  textLimit?: number;
  /** Called once if the trace cannot be written (the run goes on without it). */
  onWarning?: (message: string) => void;
  /** Most milliseconds a record waits in the buffer (default 100). */
  flushMs?: number;
}

export interface TraceRunInfo {
  program: string;
  cwd: string;
  agent: string | null;
  mode: "agent" | "no-agent" | "replay";
}

export interface TraceRunEnd {
  ok: boolean;
  exitCode: number;
  cancelled?: boolean;
  diagnostics?: Diagnostic[];
  /** The entry the run called, and its return value (docs/trace.md). */
  entry?: string;
  value?: JsonValue | null;
  /** What the run asked and spent (`RunWithAgentResult.totals`). */
  totals?: RunTotals;
}

const VERSION = "0.1.0";
const FLUSH_BYTES = 64 * 1024;

type Span = { start: { line: number; column: number } };
const at = (fileName: string | undefined, span: Span): TracePosition => ({
  file: fileName ?? "",
  line: span.start.line,
  column: span.start.column,
});

interface OpenDo {
  id: number;
  think: number;
  index: number;
  t: number;
}

interface OpenThink {
  t: number;
  repairs: number;
  usage: UsageFigures | null;
}

export class TraceWriter {
  private readonly t0 = performance.now();
  private buffer: string[] = [];
  private bytes = 0;
  private lastFlush = performance.now();
  private fd: number | null;
  private broken = false;
  private readonly textLimit: number;
  private readonly flushMs: number;
  private readonly thinks = new Map<number, OpenThink>();
  private readonly dos: OpenDo[] = [];
  private doSeq = 0;
  /** When each running loop (`loopKey`) and delegate group started. */
  private readonly loops = new Map<string, number>();
  private readonly groups = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly onExit = () => this.flush();

  /** Opens (creates or truncates) `path`; throws a plain Error with the reason if it cannot. */
  constructor(
    readonly path: string,
    private readonly options: TraceWriterOptions = {},
  ) {
    this.textLimit = options.textLimit ?? 2000;
    this.flushMs = options.flushMs ?? 100;
    try {
      this.fd = openSync(path, "w");
    } catch (error) {
      throw new Error(`cannot write the trace to ${path}: ${(error as Error).message}`);
    }
    process.on("exit", this.onExit);
  }

  /** The `run-start` record: write it first. */
  start(info: TraceRunInfo): void {
    this.write({
      t: this.now(),
      type: "run-start",
      version: TRACE_VERSION,
      ...info,
      patchwork: VERSION,
      node: process.version,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    });
  }

  /** One event of the run (evaluator or agent side), in stream order. */
  readonly handle = (event: RunEvent): void => {
    if (this.broken) return;
    const record = this.toRecord(event);
    if (record) this.write(record);
  };

  /** The run's diagnostics and `run-end`, then flush and close. */
  end(result: TraceRunEnd): void {
    const t = this.now();
    for (const d of result.diagnostics ?? []) {
      this.write({
        t,
        type: "diagnostic",
        severity: d.severity === "warning" ? "warning" : "error",
        code: d.code,
        message: d.message,
        at: d.span ? at(d.fileName, d.span) : null,
      });
    }
    const entry = result.entry !== undefined ? { entry: result.entry, value: result.value ?? null } : {};
    const totals = result.totals ? { totals: result.totals } : {};
    this.write({ t, type: "run-end", ok: result.ok, exitCode: result.exitCode, durationMs: t, cancelled: result.cancelled ?? false, ...entry, ...totals });
    this.close();
  }

  /** Flushes and closes the file (idempotent). */
  close(): void {
    this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    process.off("exit", this.onExit);
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // nothing more to lose
      }
      this.fd = null;
    }
  }

  private now(): number {
    return Math.round((performance.now() - this.t0) * 1000) / 1000;
  }

  private cut(text: string): { text: string; length?: number } {
    if (text.length <= this.textLimit) return { text };
    return { text: text.slice(0, this.textLimit) + "…", length: text.length };
  }

  private parentDo(): { think: number; do: number } | null {
    const top = this.dos[this.dos.length - 1];
    return top ? { think: top.think, do: top.id } : null;
  }

  private toRecord(event: RunEvent): TraceRecord | null {
    const t = this.now();
    switch (event.type) {
      case "print":
      case "log":
      case "agent-stderr":
        return { t, type: event.type, ...this.cut(event.text) };
      case "shell":
        return {
          t,
          type: "shell",
          command: event.command,
          status: event.status,
          ...(event.durationMs !== undefined ? { durationMs: round(event.durationMs) } : {}),
          ...(event.stdoutLength !== undefined ? { stdoutLength: event.stdoutLength } : {}),
          ...(event.stderrLength !== undefined ? { stderrLength: event.stderrLength } : {}),
          at: at(event.fileName, event.span),
          parent: this.parentDo(),
        };
      case "think-start":
        this.thinks.set(event.id, { t, repairs: 0, usage: null });
        return {
          t,
          type: "think-start",
          id: event.id,
          kind: event.kind,
          parent: this.parentDo(),
          at: at(event.fileName, event.span),
          prompt: event.prompt,
          typeText: event.typeText ?? null,
          ...(event.worker !== undefined ? { worker: event.worker } : {}),
        };
      case "think-repair": {
        const open = this.thinks.get(event.id);
        if (open) open.repairs++;
        return { t, type: "think-repair", id: event.id, error: event.error, reply: event.reply, message: event.message };
      }
      case "think-end":
        return this.thinkEnd(t, event);
      case "do-start": {
        const id = ++this.doSeq;
        this.dos.push({ id, think: event.thinkId, index: event.index, t });
        return { t, type: "do-start", id, think: event.thinkId, index: event.index };
      }
      case "do-end": {
        let k = this.dos.length - 1;
        while (k >= 0 && (this.dos[k]!.think !== event.thinkId || this.dos[k]!.index !== event.index)) k--;
        const open = k >= 0 ? this.dos.splice(k, 1)[0]! : { id: 0, t };
        const output = event.text !== undefined ? this.cut(event.text) : null;
        return {
          t,
          type: "do-end",
          id: open.id,
          think: event.thinkId,
          index: event.index,
          ok: event.ok,
          durationMs: round(t - open.t),
          ...(output ? { output: output.text, ...(output.length !== undefined ? { outputLength: output.length } : {}) } : {}),
          ...(event.error !== undefined ? { error: event.error } : {}),
        };
      }
      case "loop-start":
        this.loops.set(loopKey(event), t);
        return {
          t,
          type: "loop-start",
          loop: event.loop,
          at: at(event.fileName, event.span),
          variable: event.variable,
          total: event.total,
          parent: this.parentDo(),
          ...(event.worker !== undefined ? { worker: event.worker } : {}),
        };
      case "loop-end": {
        const key = loopKey(event);
        const start = this.loops.get(key) ?? t;
        this.loops.delete(key);
        const worker = event.worker !== undefined ? { worker: event.worker } : {};
        return { t, type: "loop-end", loop: event.loop, ok: event.ok, done: event.done, durationMs: round(t - start), ...worker };
      }
      case "delegate-start":
        this.groups.set(event.group, t);
        return { t, ...event };
      case "delegate-end": {
        const start = this.groups.get(event.group) ?? t;
        this.groups.delete(event.group);
        return { t, ...event, durationMs: round(t - start) };
      }
      case "loop-item": // a loop's items: its start and end say how many and how long
      case "think-retry": // (recorded by the retries' own records)
      case "governor":
      case "task-start": // a task's thinks carry its worker key; its start and end are not recorded
      case "task-end":
        return null;
      case "agent-started":
      case "agent-restarting":
        return { t, ...event };
      case "session":
        return { t, type: "session", think: event.thinkId, sessionId: event.sessionId, transport: event.transport, ...(event.ahead ? { ahead: true } : {}) };
      case "session-ahead":
        return { t, ...event };
      case "agent-text":
        return { t, type: "agent-text", think: event.thinkId, messageId: event.messageId, ...this.cut(event.text) };
      case "agent-thought":
        return { t, type: "agent-thought", think: event.thinkId, ...this.cut(event.text) };
      case "agent-notice":
        return { t, type: "agent-notice", think: event.thinkId, severity: event.severity, ...this.cut(event.text) };
      case "tool-call": {
        const content = event.content && event.content.length > 0 ? this.cut(contentText(event.content)).text : undefined;
        const input = event.rawInput !== undefined ? this.cut(safeJson(event.rawInput)).text : undefined;
        return {
          t,
          type: "tool-call",
          think: event.thinkId,
          toolCallId: event.toolCallId,
          title: event.title,
          status: event.status,
          ...(event.kind !== undefined ? { kind: event.kind } : {}),
          ...(content !== undefined ? { content } : {}),
          ...(input !== undefined ? { input } : {}),
        };
      }
      case "permission":
        return { t, type: "permission", think: event.thinkId, title: event.title, decision: event.decision };
      case "usage": {
        const open = this.thinks.get(event.thinkId);
        if (open) addUsage((open.usage ??= emptyUsage()), event.usage);
        return { t, type: "usage", think: event.thinkId, usage: event.usage };
      }
      case "warning":
        return {
          t,
          type: "warning",
          think: event.thinkId,
          code: event.code,
          message: event.message,
          at: event.line !== undefined ? { file: event.fileName ?? "", line: event.line, column: event.column ?? 1 } : null,
        };
      case "anomaly":
        return { t, type: "anomaly", code: event.code, message: event.message };
      case "budget-stop":
        return { t, ...event };
      case "think-retry": // (recorded by the retries' work)
      case "run-totals": // `run-end` carries them
        return null;
    }
  }

  private thinkEnd(t: number, event: Extract<PwEvent, { type: "think-end" }>): TraceRecord {
    const open = this.thinks.get(event.id);
    this.thinks.delete(event.id);
    return {
      t,
      type: "think-end",
      id: event.id,
      ok: event.ok,
      durationMs: open ? round(t - open.t) : 0,
      ...(event.reply !== undefined ? { reply: event.reply } : {}),
      ...(event.value !== undefined ? { value: event.value as JsonValue } : {}),
      ...(event.error !== undefined ? { error: event.error } : {}),
      repairs: open?.repairs ?? 0,
      ...(open?.usage ? { usage: open.usage } : {}),
      ...(event.worker !== undefined ? { worker: event.worker } : {}),
    };
  }

  private write(record: TraceRecord): void {
    if (this.broken) return;
    const line = JSON.stringify(record) + "\n";
    this.buffer.push(line);
    this.bytes += line.length;
    const now = performance.now();
    if (this.bytes >= FLUSH_BYTES || now - this.lastFlush >= this.flushMs) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes what is buffered, synchronously. Never throws: a failure warns once and stops the trace. */
  flush(): void {
    this.lastFlush = performance.now();
    if (this.buffer.length === 0 || this.fd === null || this.broken) return;
    const data = this.buffer.join("");
    this.buffer = [];
    this.bytes = 0;
    try {
      let offset = 0;
      const bytes = Buffer.from(data);
      while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset);
    } catch (error) {
      this.broken = true;
      this.buffer = [];
      this.options.onWarning?.(`cannot write the trace to ${this.path} (${(error as Error).message}); the run goes on without it`);
    }
  }
}

/** A loop in the run: its number in its evaluator, and the evaluator's worker. */
function loopKey(event: { loop: number; worker?: string }): string {
  return `${event.worker ?? ""}#${event.loop}`;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}

/** A tool call's content items as plain text. */
function contentText(content: { type: string; [key: string]: unknown }[]): string {
  return content
    .map((item) => {
      if (item.type === "diff") return `diff ${String(item.path)}`;
      if (item.type === "terminal") return `terminal ${String(item.terminalId)}`;
      const block = item.content as { type?: string; text?: string } | undefined;
      return block?.type === "text" ? (block.text ?? "") : `[${block?.type ?? item.type}]`;
    })
    .join("\n");
}
