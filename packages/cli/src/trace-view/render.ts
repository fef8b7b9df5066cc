/**
 * Text renderings of a run tree: the indented terminal tree (`patchwork trace`) and the
 * mermaid `sequenceDiagram` (`--mermaid`), in the seed book's style: Interpreter, Agent and
 * LLM participants, nested activations for nested thinks.
 */
import { omittedText, visible } from "./bound.js";
import { duration, oneLine, status, usageText, type RunTree, type TreeNode } from "./model.js";

export function headline(tree: RunTree): string {
  const parts = [`run ${tree.program}`];
  if (tree.agentName || tree.agent) parts.push(`agent ${tree.agentName ?? tree.agent}`);
  else parts.push(tree.mode);
  if (tree.end) {
    parts.push(tree.end.cancelled ? `cancelled (exit ${tree.end.exitCode})` : `${tree.end.ok ? "ok" : "failed"} (exit ${tree.end.exitCode})`);
    parts.push(duration(tree.end.durationMs));
  } else parts.push(`no run-end: the run did not finish (last record at ${duration(tree.lastT)})`);
  parts.push(`${tree.thinks} think${tree.thinks === 1 ? "" : "s"}`);
  const u = usageText(tree.usage);
  if (u) parts.push(u);
  if (tree.leftOut > 0) parts.push(`${tree.leftOut.toLocaleString("en-US")} nodes left out (long lists summarised)`);
  return parts.join(" · ");
}

export function label(node: TreeNode): string {
  switch (node.kind) {
    case "think": {
      const parts = [`${node.mode} ${node.id} at ${node.at}`, duration(node.durationMs), status(node.ok)];
      const u = usageText(node.usage);
      if (u) parts.push(u);
      if (node.repairs > 0) parts.push(`${node.repairs} repair turn${node.repairs === 1 ? "" : "s"}`);
      if (node.ok && node.reply !== null) parts.push(JSON.stringify(oneLine(node.reply, 50)));
      if (node.error) parts.push(oneLine(node.error, 80));
      return parts.join(" · ");
    }
    case "do": {
      const parts = [`do ${node.index}`, duration(node.durationMs), status(node.ok)];
      if (node.error) parts.push(oneLine(node.error, 80));
      return parts.join(" · ");
    }
    case "shell":
      return `$ ${oneLine(node.command, 70)} · exit ${node.status}${node.durationMs !== null ? ` · ${duration(node.durationMs)}` : ""}`;
    case "note":
      return oneLine(node.text, 120);
    case "loop":
      return loopText(node);
    case "omitted":
      return omittedText(node, duration);
  }
}

/** `loop at a.pw:3, 500 items, 37.00 s` (`failed after 12`, `unfinished`). */
export function loopText(node: Extract<TreeNode, { kind: "loop" }>): string {
  const parts = [node.what];
  if (node.total !== null && node.what.startsWith("loop")) parts.push(`${node.total.toLocaleString("en-US")} item${node.total === 1 ? "" : "s"}`);
  parts.push(duration(node.durationMs));
  if (node.ok === false) parts.push(node.done !== null ? `failed after ${node.done.toLocaleString("en-US")}` : "failed");
  else if (node.ok && node.done !== null && node.total !== null && node.done < node.total) parts.push(`left after ${node.done.toLocaleString("en-US")}`);
  return parts.join(", ");
}

/** The indented tree, one node per line. */
export function renderTree(tree: RunTree): string {
  const lines = [headline(tree)];
  const walk = (all: TreeNode[], prefix: string) => {
    const nodes = visible(all);
    nodes.forEach((node, i) => {
      const last = i === nodes.length - 1;
      lines.push(`${prefix}${last ? "└─ " : "├─ "}${label(node)}`);
      if (node.kind === "think" || node.kind === "do") walk(node.children, prefix + (last ? "   " : "│  "));
    });
  };
  walk(tree.children, "");
  return lines.join("\n") + "\n";
}

/** Text safe inside a mermaid message (no `;`, `#`, line breaks). */
function mm(text: string): string {
  return oneLine(text, 50).replace(/[;#]/g, " ").replace(/"/g, "'");
}

export function renderMermaid(tree: RunTree): string {
  const out = [
    "sequenceDiagram",
    "    participant I as Interpreter",
    "    participant A as Agent",
    "    participant L as LLM",
    `    Note over I: ${mm(tree.program)}`,
  ];
  const walk = (nodes: TreeNode[]) => {
    for (const node of visible(nodes)) {
      if (node.kind === "think") {
        out.push(`    I->>+A: ${node.mode} ${node.id} at ${mm(node.at)}`);
        out.push(`    A->>+L: prompt (${node.prompt.length} chars)`);
        walk(node.children);
        const u = usageText(node.usage);
        out.push(`    L-->>-A: answer${u ? ` (${mm(u)})` : ""}`);
        if (node.ok === false) out.push(`    A-->>-I: failed: ${mm(node.error ?? "")}`);
        else out.push(`    A-->>-I: ${mm(JSON.stringify(oneLine(node.reply ?? "", 40)))} · ${duration(node.durationMs)}`);
      } else if (node.kind === "do") {
        out.push(`    L->>A: do(${node.index})`);
        out.push(`    A->>+I: run do block ${node.index}`);
        walk(node.children);
        out.push(`    I-->>-A: ${node.ok === false ? `error: ${mm(node.error ?? "")}` : `${mm(JSON.stringify(oneLine(node.output ?? "", 30)))}`}`);
        out.push(`    A->>L: do result`);
      } else if (node.kind === "shell") {
        out.push(`    Note over I: $ ${mm(node.command)} (exit ${node.status})`);
      } else if (node.kind === "loop") {
        out.push(`    Note over I: ${mm(loopText(node))}`);
      } else if (node.kind === "omitted") {
        out.push(`    Note over I,L: ${omittedText(node, duration).replace(/[;#]/g, " ")}`);
      } else {
        out.push(`    Note over I: ${mm(node.text)}`);
      }
    }
  };
  walk(tree.children);
  return out.join("\n") + "\n";
}
