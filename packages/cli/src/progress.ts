import { ProgressModel, type ProgressSnapshot, type RunEvent } from "@patchwork/agent/run";
import type { Terminal } from "./terminal.js";
import { describeToolContent, formatUsage, showValue } from "./verbose.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A list (loop, task list) with no think inside shows on the line once it has run this long. */
const QUIET_MS = 100;

/**
 * Renders run events on stderr: while stderr is a terminal, one live line saying what runs
 * (the run's `ProgressModel`: the running loop's or task list's items done of all, else the
 * think at FILE:LINE with do(n); thinks running, elapsed time, ETA, tokens and cost so far,
 * retries, the governor holding back), cleared before anything else is written; warnings
 * always; with `verbose` the agent's text, thoughts, notices, tool calls with their content,
 * and token and cost figures per think (the run's are in the summary every run with an agent
 * ends with: agent-run.ts); with `verbose` 2 also the agent's own log lines (its stderr).
 */
export class Progress {
  private readonly thinks: { id: number; label: string }[] = [];
  private readonly dos: string[] = [];
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private shown = false;
  private midLine = false;
  /** Which stream the last partial verbose text belonged to (a label starts each switch). */
  private stream: "text" | "thought" | null = null;
  /** The think the last partial verbose text belonged to (text of another think starts a new line). */
  private streamThink: number | null = null;
  /** The worker of each think of a worker task (absent: the main program's). */
  private readonly workers = new Map<number, string>();
  private readonly model = new ProgressModel();

  constructor(
    private readonly term: Terminal,
    private readonly options: { spinner: boolean; verbose: number },
  ) {}

  handle(event: RunEvent): void {
    this.model.apply(event, Date.now());
    switch (event.type) {
      case "think-start": {
        if (event.worker !== undefined && event.worker !== "main") this.workers.set(event.id, event.worker);
        const where = `${event.kind} at ${event.fileName}:${event.span.start.line}`;
        this.thinks.push({ id: event.id, label: `${this.tag(event.id)}${where}` });
        this.verbose(`${this.tag(event.id)}── ${where} ──\n`);
        break;
      }
      case "think-end":
        this.thinks.splice(this.thinks.findIndex((t) => t.id === event.id), 1);
        // The value as JSON, so its structure shows (print joins an array's elements with ", ").
        if (event.ok && event.value !== undefined) this.verbose(`${this.tag(event.id)}[value of think ${event.id}: ${showValue(event.value)}]\n`);
        break;
      case "do-start":
        this.dos.push(`do(${event.index})`);
        this.verbose(`${this.tag(event.thinkId)}[do(${event.index})]\n`);
        break;
      case "do-end":
        this.dos.pop();
        break;
      case "agent-started":
        this.verbose(`[agent ${event.agentName ?? "?"} started, pid ${event.pid}, do tool over ${event.transport}]\n`);
        break;
      case "agent-restarting":
        this.verbose(`[agent pid ${event.pid ?? "?"} had ${event.sessions} sessions (limit ${event.limit}): restarting it to free their memory]\n`);
        break;
      case "agent-text":
        this.streamed("text", event.text, event.thinkId);
        break;
      case "agent-thought":
        this.streamed("thought", event.text, event.thinkId);
        break;
      case "agent-notice":
        this.verbose(`${this.tag(event.thinkId)}[notice ${event.severity}: ${event.text}]\n`);
        break;
      case "tool-call":
        this.verbose(`${this.tag(event.thinkId)}[tool ${event.title}: ${event.status}]\n${describeToolContent(event.content)}`);
        break;
      case "usage": {
        // Only `--verbose` shows them: the figures are not formatted otherwise.
        const figures = this.options.verbose ? formatUsage(event.usage) : "";
        if (figures) this.verbose(`${this.tag(event.thinkId)}[usage of think ${event.thinkId}: ${figures}]\n`);
        break;
      }
      case "warning":
        this.warn(event);
        break;
      case "permission":
        this.verbose(`${this.tag(event.thinkId)}[permission ${event.title}: ${event.decision}]\n`);
        break;
      case "anomaly":
        this.verbose(`[protocol anomaly: ${event.message}]\n`);
        break;
      case "agent-stderr":
        if (this.options.verbose >= 2) this.verbose(event.text);
        break;
      case "budget-stop":
        this.verbose(`[budget: ${event.spent} ${event.kind === "thinks" ? "asked" : "spent"}, limit ${event.limit}: no more thinks start; the run stops once those under way have answered]\n`);
        break;
      case "loop-start":
      case "loop-end":
      case "delegate-start":
      case "delegate-end":
      case "task-end":
      case "think-retry":
      case "governor":
        break;
      default:
        return;
    }
    this.update();
  }

  /** Removes the spinner line (before other output, and at the end). */
  clear(): void {
    if (this.shown) this.term.stderr("\r\x1b[K");
    this.shown = false;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
    if (this.midLine) this.term.stderr("\n");
    this.midLine = false;
  }

  /** A warning is shown with or without `--verbose`, positioned like a diagnostic. */
  private warn(event: Extract<RunEvent, { type: "warning" }>): void {
    this.clear();
    if (this.midLine) this.term.stderr("\n");
    this.midLine = false;
    const where = event.fileName ? `${event.fileName}:${event.line ?? 1}:${event.column ?? 1}: ` : "";
    this.term.stderr(`${where}warning[${event.code}]: ${event.message}\n`);
  }

  /** `[worker] ` for a think of a worker task (lines of concurrent workers say whose they are). */
  private tag(thinkId: number | null): string {
    const worker = thinkId === null ? undefined : this.workers.get(thinkId);
    return worker === undefined ? "" : `[${worker}] `;
  }

  /**
   * Streamed agent text or thought: a label when the stream switches, then the text as it
   * comes. Text of another think (a concurrent worker's) starts a new line with its labels.
   */
  private streamed(kind: "text" | "thought", text: string, thinkId: number): void {
    if (!this.options.verbose || text === "") return;
    if (this.stream !== null && this.streamThink !== thinkId) {
      if (this.midLine) this.verbose("\n", true);
      this.stream = null;
    }
    const label = this.stream !== kind && (kind === "thought" || this.stream === "thought") ? (kind === "thought" ? "[thought] " : "[text] ") : "";
    const tag = this.stream === null ? this.tag(thinkId) : "";
    if (tag || label) this.verbose(tag + label, true);
    this.stream = kind;
    this.streamThink = thinkId;
    this.verbose(text, true);
  }

  private verbose(text: string, partial = false): void {
    if (!this.options.verbose || text === "") return;
    this.clear();
    if (!partial) this.stream = null;
    if (!partial && this.midLine) this.term.stderr("\n");
    this.term.stderr(text);
    this.midLine = !text.endsWith("\n");
  }

  private update(): void {
    if (!this.options.spinner) return;
    if (this.thinks.length === 0 && this.model.current() === null) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.clear();
      return;
    }
    this.timer ??= setInterval(() => this.draw(), 100);
    this.draw();
  }

  private draw(): void {
    if (this.midLine) return; // never draw over streamed agent text
    const now = Date.now();
    const list = this.model.current();
    const top = this.thinks[this.thinks.length - 1];
    // A quick loop of plain code never shows.
    if (!top && (!list || (!list.work && now - list.startedAt < QUIET_MS))) return this.clear();
    this.frame = (this.frame + 1) % FRAMES.length;
    const line = progressLine(this.model.snapshot(now), top?.label ?? null, this.thinks.length, this.dos[this.dos.length - 1] ?? null);
    this.term.stderr(`\r\x1b[K${FRAMES[this.frame]} ${fit(line)}`);
    this.shown = true;
  }
}

/**
 * The line's text: `37/500 doc in a.pw:3 · 2 thinks · 1m12s · ETA 3m05s · 12,345 tokens ·
 * 0.4200 USD · 3 retries · holding: rate (…)`; without a list, the innermost think's place
 * (`think at a.pw:3 (depth 2) · do(0)`).
 */
export function progressLine(s: ProgressSnapshot, think: string | null, depth: number, doing: string | null): string {
  const parts: string[] = [];
  if (s.list) parts.push(`${s.list.done.toLocaleString("en-US")}/${s.list.total === null ? "?" : s.list.total.toLocaleString("en-US")} ${s.list.label}`);
  else if (think) parts.push(`${think}${depth > 1 ? ` (depth ${depth})` : ""}${doing ? ` · ${doing}` : ""}`);
  if (s.list && s.thinksRunning > 0) parts.push(`${s.thinksRunning} think${s.thinksRunning === 1 ? "" : "s"} running`);
  parts.push(clock(s.elapsedMs));
  if (s.list?.etaMs != null) parts.push(`ETA ${clock(s.list.etaMs)}`);
  const tokens = (s.usage.inputTokens ?? 0) + (s.usage.outputTokens ?? 0);
  if (tokens > 0) parts.push(`${tokens.toLocaleString("en-US")} tokens`);
  for (const [currency, amount] of Object.entries(s.usage.cost ?? {})) parts.push(`${amount.toFixed(4)} ${currency}`);
  if (s.retries > 0) parts.push(`${s.retries} retr${s.retries === 1 ? "y" : "ies"}`);
  if (s.failed > 0) parts.push(`${s.failed} failed`);
  if (s.holding) parts.push(`holding: ${s.holding.reason}${s.holding.detail ? ` (${s.holding.detail})` : ""}`);
  return parts.join(" · ");
}

/** `42s`, `3m05s`, `1h02m`. */
export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/** The line cut to the terminal's width, so that it never wraps (a wrapped line cannot be cleared). */
function fit(line: string): string {
  const width = (process.stderr.columns || 80) - 3;
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
