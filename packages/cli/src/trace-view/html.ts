/**
 * `patchwork trace run.jsonl --html out.html`: one self-contained page (no network: styles,
 * script and data inline) with the run as a collapsible timeline. Every node is a `<details>`
 * whose summary shows its label and a bar placed on the run's time axis; opening a think shows
 * its prompt and reply, then its `do` calls and their nested thinks.
 */
import { visible } from "./bound.js";
import { headline, label } from "./render.js";
import type { RunTree, TreeNode } from "./model.js";

interface PageNode {
  kind: TreeNode["kind"];
  label: string;
  start: number;
  duration: number | null;
  ok: boolean | null;
  detail: string;
  children: PageNode[];
}

function toPage(node: TreeNode): PageNode {
  const base = { kind: node.kind, label: label(node), start: node.start };
  switch (node.kind) {
    case "think":
      return {
        ...base,
        duration: node.durationMs,
        ok: node.ok,
        detail: `prompt:\n${node.prompt}\n\n${node.ok === false ? `error: ${node.error ?? ""}` : `reply:\n${node.reply ?? "(none)"}`}`,
        children: visible(node.children).map(toPage),
      };
    case "do":
      return {
        ...base,
        duration: node.durationMs,
        ok: node.ok,
        detail: node.ok === false ? `error: ${node.error ?? ""}` : `output:\n${node.output ?? ""}`,
        children: visible(node.children).map(toPage),
      };
    case "shell":
      return { ...base, duration: node.durationMs, ok: node.status === 0, detail: node.command, children: [] };
    case "note":
      return { ...base, duration: null, ok: node.severity !== "error", detail: node.text, children: [] };
    case "loop":
      return { ...base, duration: node.durationMs, ok: node.ok, detail: label(node), children: [] };
    case "omitted":
      return { ...base, start: Number.isFinite(node.start) ? node.start : 0, duration: node.end - node.start, ok: node.failed === 0, detail: "", children: [] };
  }
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #1d1d1f; background: #fff; }
h1 { font-size: 16px; margin: 0 0 12px; }
details { margin: 2px 0 2px 18px; }
summary { cursor: pointer; display: flex; align-items: center; gap: 8px; padding: 2px 0; list-style: none; }
summary::before { content: "▸"; color: #777; width: 10px; }
details[open] > summary::before { content: "▾"; }
summary .label { flex: 0 0 52%; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-family: ui-monospace, monospace; font-size: 12px; }
.axis { position: relative; flex: 1; height: 12px; background: #f0f0f3; border-radius: 3px; }
.bar { position: absolute; top: 0; height: 12px; min-width: 3px; border-radius: 3px; }
.think > summary .bar { background: #2a6fdb; }
.do > summary .bar { background: #e8912d; }
.shell > summary .bar { background: #7a7a85; }
.note > summary .bar { background: #c62828; }
.omitted > summary .bar { background: repeating-linear-gradient(90deg, #b0b0bb 0 4px, transparent 4px 8px); }
.omitted > summary .label { font-style: italic; }
.failed > summary .label { color: #c62828; }
pre { margin: 4px 0 6px 18px; padding: 6px 8px; background: #f7f7f9; border-left: 3px solid #d0d0d8; white-space: pre-wrap; font-size: 12px; max-height: 240px; overflow: auto; }
`;

const SCRIPT = `
const data = JSON.parse(document.getElementById("trace-data").textContent);
const total = Math.max(data.total, 0.001);
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function render(node, open) {
  const d = el("details", node.kind + (node.ok === false ? " failed" : ""));
  d.open = open;
  const s = el("summary");
  s.appendChild(el("span", "label", node.label));
  const axis = el("span", "axis");
  const bar = el("span", "bar");
  const end = node.duration === null ? data.total : node.start + node.duration;
  bar.style.left = (100 * node.start / total).toFixed(3) + "%";
  bar.style.width = Math.max(0, 100 * (end - node.start) / total).toFixed(3) + "%";
  axis.appendChild(bar);
  s.appendChild(axis);
  d.appendChild(s);
  if (node.detail) d.appendChild(el("pre", "", node.detail));
  for (const c of node.children) d.appendChild(render(c, open));
  return d;
}
const root = document.getElementById("tree");
// Everything open for a small run; a large one opens at its top level only.
function count(nodes) { return nodes.reduce((n, c) => n + 1 + count(c.children), 0); }
const small = count(data.nodes) <= 300;
for (const n of data.nodes) {
  const top = render(n, small);
  top.open = true;
  root.appendChild(top);
}
document.body.dataset.rendered = String(document.querySelectorAll("details").length);
`;

export function renderHtml(tree: RunTree): string {
  const data = {
    total: tree.end?.durationMs ?? tree.lastT,
    nodes: visible(tree.children).map(toPage),
  };
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  const title = escapeHtml(headline(tree));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(`patchwork trace: ${tree.program}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${title}</h1>
<div id="tree"></div>
<script type="application/json" id="trace-data">${json}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
