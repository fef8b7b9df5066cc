import type { RunEvent } from "@patchwork/agent";
import type { Terminal } from "./terminal.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Renders run events on stderr: a spinner line saying what is running (think at FILE:LINE,
 * do(n)) while stderr is a terminal, and with `verbose` the agent's text and tool calls.
 */
export class Progress {
  private readonly thinks: { id: number; label: string }[] = [];
  private readonly dos: string[] = [];
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private shown = false;
  private midLine = false;

  constructor(
    private readonly term: Terminal,
    private readonly options: { spinner: boolean; verbose: boolean },
  ) {}

  handle(event: RunEvent): void {
    switch (event.type) {
      case "think-start":
        this.thinks.push({ id: event.id, label: `${event.kind} at ${event.fileName}:${event.span.start.line}` });
        this.verbose(`── ${event.kind} at ${event.fileName}:${event.span.start.line} ──\n`);
        break;
      case "think-end":
        this.thinks.splice(this.thinks.findIndex((t) => t.id === event.id), 1);
        break;
      case "do-start":
        this.dos.push(`do(${event.index})`);
        this.verbose(`[do(${event.index})]\n`);
        break;
      case "do-end":
        this.dos.pop();
        break;
      case "agent-started":
        this.verbose(`[agent ${event.agentName ?? "?"} started, pid ${event.pid}, do tool over ${event.transport}]\n`);
        break;
      case "agent-text":
        this.verbose(event.text, true);
        break;
      case "tool-call":
        this.verbose(`[tool ${event.title}: ${event.status}]\n`);
        break;
      case "permission":
        this.verbose(`[permission ${event.title}: ${event.decision}]\n`);
        break;
      case "anomaly":
        this.verbose(`[protocol anomaly: ${event.message}]\n`);
        break;
      case "agent-stderr":
        this.verbose(event.text);
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

  private verbose(text: string, partial = false): void {
    if (!this.options.verbose || text === "") return;
    this.clear();
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
