/**
 * Keeps a run tree bounded however long the run (issue 21 §5): each node (and the run) keeps
 * its first `HEAD` children and its last `TAIL`; the ones between are summarised in one
 * `omitted` node in their place (how many, of which kinds, how many failed, the time they
 * span), which every view shows. Once the whole tree holds `budget` nodes, a node's first
 * children stop growing too and only its last `TAIL` change. A node left out before it ended
 * updates its summary when it ends.
 */
import type { Container, DoNode, OmittedNode, ThinkNode, TreeNode } from "./nodes.js";

/** Children kept at the start and at the end of each node's list. */
export const HEAD = 50;
export const TAIL = 10;

/**
 * Adds `node` to `into`'s children, or to its summary. Returns how many nodes this left out
 * (the node itself if summarised at once, or an older child and what it held).
 */
export function attach(into: Container, node: TreeNode, budget: { left: number }): number {
  const kids = into.children;
  if (!into.omitted && kids.length < HEAD && budget.left > 0) {
    budget.left--;
    kids.push(node);
    return 0;
  }
  if (!into.omitted) {
    into.omitted = { kind: "omitted", count: 0, thinks: 0, dos: 0, shells: 0, notes: 0, failed: 0, unfinished: 0, start: Infinity, end: 0 };
    kids.push(into.omitted);
  }
  const at = kids.indexOf(into.omitted);
  kids.push(node);
  if (kids.length - at - 1 <= TAIL) return 0;
  const [old] = kids.splice(at + 1, 1);
  return summarise(into.omitted, old!);
}

/** Counts `node` and what it holds into `into`; returns how many nodes that newly leaves out. */
function summarise(into: OmittedNode, node: TreeNode): number {
  if (node.kind === "omitted") {
    for (const k of ["count", "thinks", "dos", "shells", "notes", "failed", "unfinished"] as const) into[k] += node[k];
    into.start = Math.min(into.start, node.start);
    into.end = Math.max(into.end, node.end);
    return 0; // counted as left out when they were
  }
  into.count++;
  into.start = Math.min(into.start, node.start);
  into.end = Math.max(into.end, node.start + (("durationMs" in node ? node.durationMs : null) ?? 0));
  let n = 1;
  switch (node.kind) {
    case "think":
    case "do":
      if (node.kind === "think") into.thinks++;
      else into.dos++;
      if (node.ok === false) into.failed++;
      if (node.ok === null) {
        into.unfinished++;
        node.omittedInto = into;
      }
      for (const child of node.children) n += summarise(into, child);
      break;
    case "shell":
      into.shells++;
      if (node.status !== 0) into.failed++;
      break;
    case "note":
      into.notes++;
      if (node.severity === "error") into.failed++;
      break;
    case "loop":
      if (node.ok === false) into.failed++;
      break;
  }
  return n;
}

/** A think or `do` call has ended: if it was left out unfinished, its summary learns how. */
export function endOf(node: ThinkNode | DoNode): void {
  const into = node.omittedInto;
  if (!into) return;
  node.omittedInto = undefined;
  into.unfinished--;
  if (node.ok === false) into.failed++;
  if (node.durationMs !== null) into.end = Math.max(into.end, node.start + node.durationMs);
}

/** `… 9,950 more left out: 9,950 thinks (3 failed), 12 commands · 1.20 s – 2.4 h` style text. */
export function omittedText(o: OmittedNode, duration: (ms: number) => string): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const parts: string[] = [];
  const kind = (count: number, one: string, many: string) => count > 0 && parts.push(`${n(count)} ${count === 1 ? one : many}`);
  kind(o.thinks, "think", "thinks");
  kind(o.dos, "do call", "do calls");
  kind(o.shells, "command", "commands");
  kind(o.notes, "diagnostic", "diagnostics");
  const state = [o.failed > 0 ? `${n(o.failed)} failed` : "", o.unfinished > 0 ? `${n(o.unfinished)} unfinished` : ""].filter(Boolean).join(", ");
  const span = o.count > 0 ? ` · from ${duration(o.start)} to ${duration(o.end)}` : "";
  return `… ${n(o.count)} more left out: ${parts.join(", ")}${state ? ` (${state})` : ""}${span}`;
}

/** The nodes a view shows: an empty summary (nothing left out yet) is not shown. */
export function visible(nodes: TreeNode[]): TreeNode[] {
  return nodes.some((n) => n.kind === "omitted" && n.count === 0) ? nodes.filter((n) => n.kind !== "omitted" || n.count > 0) : nodes;
}
