import type { RunEvent } from "@patchwork/agent/run";
import type { Terminal } from "./terminal.js";
import { describeToolContent, formatUsage, showValue } from "./verbose.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Renders run events on stderr: a spinner line saying what is running (think at FILE:LINE,
 * do(n)) while stderr is a terminal; warnings always; with `verbose` (1) the agent's text,
 * thoughts, notices, tool calls with their content, and token and cost figures per think (the
 * run's are in the summary every run with an agent ends with: agent-run.ts); with `verbose` 2
 * also the agent's own log lines (its stderr), which would otherwise drown the run's story.
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

  constructor(
    private readonly term: Terminal,
    private readonly options: { spinner: boolean; verbose: number },
  ) {}

  handle(event: RunEvent): void {
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
    if (this.thinks.length === 0) {
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
    const top = this.thinks[this.thinks.length - 1];
    if (!top) return;
    const depth = this.thinks.length > 1 ? ` (depth ${this.thinks.length})` : "";
    const doing = this.dos.length > 0 ? ` · ${this.dos[this.dos.length - 1]}` : "";
    this.frame = (this.frame + 1) % FRAMES.length;
    this.term.stderr(`\r\x1b[K${FRAMES[this.frame]} ${top.label}${depth}${doing}`);
    this.shown = true;
  }
}
