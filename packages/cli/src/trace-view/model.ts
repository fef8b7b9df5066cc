/**
 * The run as a tree, built from trace records: think → do → think …, with shell commands
 * under the `do` call (or the program) that ran them. One model for the terminal tree, the
 * mermaid diagram and the HTML page.
 */
import type { TraceRecord, UsageFigures } from "@patchwork/agent";

export interface ThinkNode {
  kind: "think";
  id: number;
  mode: "think" | "ask";
  at: string;
  prompt: string;
  start: number;
  durationMs: number | null;
  ok: boolean | null;
  reply: string | null;
  error: string | null;
  repairs: number;
  usage: UsageFigures | null;
  children: TreeNode[];
}

export interface DoNode {
  kind: "do";
  id: number;
  think: number;
  index: number;
  start: number;
  durationMs: number | null;
  ok: boolean | null;
  output: string | null;
  error: string | null;
  children: TreeNode[];
}

export interface ShellNode {
  kind: "shell";
  command: string;
  status: number;
  start: number;
  durationMs: number | null;
}

export interface NoteNode {
  kind: "note";
  severity: "error" | "warning";
  text: string;
  start: number;
}

export type TreeNode = ThinkNode | DoNode | ShellNode | NoteNode;

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
  thinks: number;
  usage: UsageFigures | null;
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

export function buildTree(records: TraceRecord[]): RunTree {
  const first = records[0]!;
  const tree: RunTree = {
    program: first.type === "run-start" ? first.program : "?",
    agent: first.type === "run-start" ? first.agent : null,
    agentName: null,
    mode: first.type === "run-start" ? first.mode : "?",
    startedAt: first.type === "run-start" ? first.startedAt : "",
    end: null,
    lastT: 0,
    children: [],
    thinks: 0,
    usage: null,
  };
  const thinks = new Map<number, ThinkNode>();
  const dos = new Map<number, DoNode>();
  const under = (parent: { do: number } | null): TreeNode[] => (parent ? (dos.get(parent.do)?.children ?? tree.children) : tree.children);
  for (const r of records) {
    tree.lastT = Math.max(tree.lastT, r.t);
    switch (r.type) {
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
        thinks.set(r.id, node);
        under(r.parent).push(node);
        tree.thinks++;
        break;
      }
      case "think-end": {
        const node = thinks.get(r.id);
        if (!node) break;
        node.durationMs = r.durationMs;
        node.ok = r.ok;
        node.reply = r.reply ?? (r.value !== undefined ? JSON.stringify(r.value) : null);
        node.error = r.error ?? null;
        node.repairs = r.repairs;
        if (r.usage) {
          node.usage = r.usage;
          tree.usage = addUsage(tree.usage, r.usage);
        }
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
        dos.set(r.id, node);
        (thinks.get(r.think)?.children ?? tree.children).push(node);
        break;
      }
      case "do-end": {
        const node = dos.get(r.id);
        if (!node) break;
        node.durationMs = r.durationMs;
        node.ok = r.ok;
        node.output = r.output ?? null;
        node.error = r.error ?? null;
        break;
      }
      case "shell":
        under(r.parent).push({
          kind: "shell",
          command: r.command,
          status: r.status,
          start: r.t - (r.durationMs ?? 0),
          durationMs: r.durationMs ?? null,
        });
        break;
      case "diagnostic":
        tree.children.push({
          kind: "note",
          severity: r.severity,
          text: `${r.at ? `${r.at.file}:${r.at.line}:${r.at.column}: ` : ""}${r.severity}[${r.code}]: ${r.message}`,
          start: r.t,
        });
        break;
      case "run-end":
        tree.end = { ok: r.ok, exitCode: r.exitCode, durationMs: r.durationMs, cancelled: r.cancelled };
        break;
      default:
        break;
    }
  }
  return tree;
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
