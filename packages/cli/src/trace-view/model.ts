/**
 * The run as a tree, built from trace records: think → do → think …, with shell commands
 * under the `do` call (or the program) that ran them. One model for the terminal tree, the
 * mermaid diagram and the HTML page.
 *
 * Built record by record (`TreeBuilder`, as a trace is read), in bounded memory: a node with
 * many children (a long loop) keeps its first and last ones and summarises the rest in one
 * `omitted` node (bound.ts), so the views of a huge run stay readable and say what they left out.
 */
import type { TraceRecord, UsageFigures } from "@patchwork/agent";
import { attach, endOf } from "./bound.js";
import type { Container, DoNode, LoopNode, NoteNode, OmittedNode, ShellNode, ThinkNode, TreeNode } from "./nodes.js";

export type { DoNode, LoopNode, NoteNode, OmittedNode, ShellNode, ThinkNode, TreeNode } from "./nodes.js";

export interface RunTree {
  program: string;
  agent: string | null;
  agentName: string | null;
  mode: string;
  startedAt: string;
  /** Null when the trace has no run-end (the run crashed or is still going). */
  end: { ok: boolean; exitCode: number; durationMs: number; cancelled: boolean } | null;
  lastT: number;
  children: TreeNode[];
  omitted?: OmittedNode;
  thinks: number;
  usage: UsageFigures | null;
  /** Nodes the views leave out (summarised in `omitted` nodes). */
  leftOut: number;
  /** The number of the trace's last line, left out because a kill cut it off. */
  cutLastLine: number | null;
}

const addUsage = (into: UsageFigures | null, more: UsageFigures): UsageFigures => {
  const u = into ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, contextTokens: 0, cost: {} };
  u.inputTokens += more.inputTokens;
  u.outputTokens += more.outputTokens;
  u.totalTokens += more.totalTokens;
  u.contextTokens += more.contextTokens;
  for (const [c, v] of Object.entries(more.cost)) u.cost[c] = (u.cost[c] ?? 0) + v;
  return u;
};

/** The tree of a trace's records, built one record at a time in bounded memory. */
export class TreeBuilder {
  readonly tree: RunTree;
  /** Thinks and `do` calls not yet ended (an ended one gets no more children). */
  private readonly thinks = new Map<number, ThinkNode>();
  private readonly dos = new Map<number, DoNode>();
  /** Loops (by worker and number) and task lists (by group) not yet ended. */
  private readonly loops = new Map<string, LoopNode>();
  private readonly budget = { left: NODE_BUDGET };

  constructor() {
    this.tree = {
      program: "?",
      agent: null,
      agentName: null,
      mode: "?",
      startedAt: "",
      end: null,
      lastT: 0,
      children: [],
      thinks: 0,
      usage: null,
      leftOut: 0,
      cutLastLine: null,
    };
  }

  private put(into: Container, node: TreeNode): void {
    this.tree.leftOut += attach(into, node, this.budget);
  }

  private under(parent: { do: number } | null): Container {
    return (parent ? this.dos.get(parent.do) : undefined) ?? this.tree;
  }

  add(r: TraceRecord): void {
    const tree = this.tree;
    tree.lastT = Math.max(tree.lastT, r.t);
    switch (r.type) {
      case "run-start":
        Object.assign(tree, { program: r.program, agent: r.agent, mode: r.mode, startedAt: r.startedAt });
        break;
      case "agent-started":
        tree.agentName = r.agentName;
        break;
      case "think-start": {
        const node: ThinkNode = {
          kind: "think",
          id: r.id,
          mode: r.kind,
          at: `${r.at.file}:${r.at.line}:${r.at.column}`,
          prompt: r.prompt,
          start: r.t,
          durationMs: null,
          ok: null,
          reply: null,
          error: null,
          repairs: 0,
          usage: null,
          children: [],
        };
        this.thinks.set(r.id, node);
        this.put(this.under(r.parent), node);
        tree.thinks++;
        break;
      }
      case "think-end": {
        const node = this.thinks.get(r.id);
        if (r.usage) tree.usage = addUsage(tree.usage, r.usage);
        if (!node) break;
        this.thinks.delete(r.id);
        node.durationMs = r.durationMs;
        node.ok = r.ok;
        node.reply = r.reply ?? (r.value !== undefined ? JSON.stringify(r.value) : null);
        node.error = r.error ?? null;
        node.repairs = r.repairs;
        if (r.usage) node.usage = r.usage;
        endOf(node);
        break;
      }
      case "think-retry": {
        const node = this.thinks.get(r.think);
        if (node) node.retries = { count: (node.retries?.count ?? 0) + 1, reason: r.reason };
        break;
      }
      case "do-start": {
        const node: DoNode = {
          kind: "do",
          id: r.id,
          think: r.think,
          index: r.index,
          start: r.t,
          durationMs: null,
          ok: null,
          output: null,
          error: null,
          children: [],
        };
        this.dos.set(r.id, node);
        this.put(this.thinks.get(r.think) ?? tree, node);
        break;
      }
      case "do-end": {
        const node = this.dos.get(r.id);
        if (!node) break;
        this.dos.delete(r.id);
        node.durationMs = r.durationMs;
        node.ok = r.ok;
        node.output = r.output ?? null;
        node.error = r.error ?? null;
        endOf(node);
        break;
      }
      case "shell":
        this.put(this.under(r.parent), {
          kind: "shell",
          command: r.command,
          status: r.status,
          start: r.t - (r.durationMs ?? 0),
          durationMs: r.durationMs ?? null,
        });
        break;
      case "diagnostic":
        this.put(tree, {
          kind: "note",
          severity: r.severity,
          text: `${r.at ? `${r.at.file}:${r.at.line}:${r.at.column}: ` : ""}${r.severity}[${r.code}]: ${r.message}`,
          start: r.t,
        });
        break;
      case "loop-start":
      case "delegate-start": {
        const loop = r.type === "loop-start";
        const node: LoopNode = {
          kind: "loop",
          what: loop ? `loop at ${r.at.file}:${r.at.line}` : `delegate of ${r.total} task${r.total === 1 ? "" : "s"}`,
          total: r.total,
          done: null,
          start: r.t,
          durationMs: null,
          ok: null,
        };
        this.loops.set(loop ? `${r.worker ?? ""}#${r.loop}` : r.group, node);
        this.put(loop ? this.under(r.parent) : tree, node);
        break;
      }
      case "loop-end":
      case "delegate-end": {
        const key = r.type === "loop-end" ? `${r.worker ?? ""}#${r.loop}` : r.group;
        const node = this.loops.get(key);
        if (!node) break;
        this.loops.delete(key);
        Object.assign(node, { ok: r.ok, durationMs: r.durationMs, done: r.type === "loop-end" ? r.done : null });
        break;
      }
      case "run-end":
        tree.end = { ok: r.ok, exitCode: r.exitCode, durationMs: r.durationMs, cancelled: r.cancelled };
        break;
      default:
        break;
    }
  }
}

/** Nodes the views show at most, over the whole tree (besides each node's last few children: bound.ts). */
const NODE_BUDGET = 5000;

export function buildTree(records: TraceRecord[]): RunTree {
  const builder = new TreeBuilder();
  for (const r of records) builder.add(r);
  return builder.tree;
}

/** `812 ms`, `1.86 s`, `0.42 ms`. */
export function duration(ms: number | null): string {
  if (ms === null) return "unfinished";
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** `1,234 tokens · 0.0123 USD`, or "" when there is nothing to say. */
export function usageText(u: UsageFigures | null): string {
  if (!u) return "";
  const parts: string[] = [];
  const total = u.totalTokens || u.inputTokens + u.outputTokens;
  if (total > 0) parts.push(`${total.toLocaleString("en-US")} tokens`);
  for (const [c, v] of Object.entries(u.cost)) if (v !== 0) parts.push(`${v.toFixed(4)} ${c}`);
  return parts.join(" · ");
}

export function status(ok: boolean | null): string {
  return ok === null ? "unfinished" : ok ? "ok" : "failed";
}

/** The first line of a text, cut to `max` characters. */
export function oneLine(text: string, max = 60): string {
  const line = text.trim().split("\n")[0] ?? "";
  const more = text.trim().includes("\n") || line.length > max;
  return (line.length > max ? line.slice(0, max) : line) + (more ? "…" : "");
}
