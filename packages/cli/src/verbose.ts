/**
 * Text for `--verbose`: what a tool call carried (text, diffs, terminals) and the token and
 * cost figures of a think or a run. Plain functions over the agent's events.
 */
import type { UsageFigures } from "@patchwork/agent";
import { groupDigits } from "@patchwork/agent/run";

export { groupDigits };

type ToolContent = { type: string; [key: string]: unknown };

/** One line per content item of a tool call, indented under its `[tool …]` line. */
export function describeToolContent(content: ToolContent[] | undefined): string {
  if (!content || content.length === 0) return "";
  const lines: string[] = [];
  for (const item of content) {
    if (item.type === "diff") {
      const { added, removed } = diffCounts(String(item.oldText ?? ""), String(item.newText ?? ""));
      lines.push(`  diff ${String(item.path)} (+${added} -${removed})`);
    } else if (item.type === "terminal") lines.push(`  terminal ${String(item.terminalId)}`);
    else if (item.type === "content") {
      const block = item.content as { type?: string; text?: string } | undefined;
      const text = block?.type === "text" ? (block.text ?? "") : `[${block?.type ?? "content"}]`;
      for (const line of clipLines(text, 6)) lines.push(`  │ ${line}`);
    }
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

function diffCounts(oldText: string, newText: string): { added: number; removed: number } {
  const before = new Set(oldText === "" ? [] : oldText.split("\n"));
  const after = new Set(newText === "" ? [] : newText.split("\n"));
  let added = 0;
  let removed = 0;
  for (const line of after) if (!before.has(line)) added++;
  for (const line of before) if (!after.has(line)) removed++;
  return { added, removed };
}

function clipLines(text: string, max: number): string[] {
  const lines = text.replace(/\n+$/, "").split("\n");
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `… (${lines.length - max} more lines)`];
}

/** A value as compact JSON with its type (`["a","b"] (array)`), clipped to 300 characters. */
export function showValue(value: unknown): string {
  const json = JSON.stringify(value) ?? "null";
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "object" ? "object" : typeof value;
  return `${json.length > 300 ? `${json.slice(0, 300)}…` : json} (${type})`;
}

/** `1,234 in / 56 out (1,290 total) · 2,000 in context · 0.0123 USD`; "" when nothing was reported. */
export function formatUsage(u: UsageFigures): string {
  const n = groupDigits;
  const parts: string[] = [];
  if (u.totalTokens > 0 || u.inputTokens > 0 || u.outputTokens > 0)
    parts.push(`tokens ${n(u.inputTokens)} in / ${n(u.outputTokens)} out (${n(u.totalTokens)} total)`);
  if (u.contextTokens > 0) parts.push(`${n(u.contextTokens)} tokens in context`);
  for (const [currency, amount] of Object.entries(u.cost)) parts.push(`cost ${amount.toFixed(4)} ${currency}`);
  return parts.join(" · ");
}
