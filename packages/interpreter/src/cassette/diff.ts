/**
 * A unified-style line diff of two texts (`-` recorded, `+` now), with up to `context` lines of
 * context around each change: what PW3032 (a prompt that drifted from its cassette) and
 * `patchwork test` show. Bounded whatever the texts (issue 34: a drifted 500,000-line prompt
 * printed 1.95 MB): the lines both texts begin and end with are set aside first (linear), the
 * rest is diffed by LCS when small enough (else shown as removed then added), at most
 * `DIFF_MAX_LINES` lines are shown, each cut at `DIFF_MAX_WIDTH` characters, and a last line
 * counts what was left out.
 */

/** The most lines a diff shows (changes and their context). */
export const DIFF_MAX_LINES = 60;
/** The most characters of a line a diff shows. */
export const DIFF_MAX_WIDTH = 200;
/** The largest LCS table (lines × lines) computed; past it the middle is shown as removed then added. */
const LCS_MAX_CELLS = 4_000_000;

type Op = { op: " " | "-" | "+"; line: string };

export function lineDiff(before: string, after: string, context = 2): string {
  const a = before.split("\n");
  const b = after.split("\n");
  // Both ending with a line break: the empty last "line" says nothing.
  if (a.length > 1 && b.length > 1 && a[a.length - 1] === "" && b[b.length - 1] === "") {
    a.pop();
    b.pop();
  }
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const ops: Op[] = [];
  for (let k = Math.max(0, start - context); k < start; k++) ops.push({ op: " ", line: a[k]! });
  for (const o of middleOps(a.slice(start, a.length - end), b.slice(start, b.length - end))) ops.push(o);
  for (let k = a.length - end; k < Math.min(a.length, a.length - end + context); k++) ops.push({ op: " ", line: a[k]! });
  const keep = keptLines(ops, context);
  const lines: string[] = [];
  if (start > context) lines.push("  …");
  let skipped = false;
  let shownChanges = 0;
  const changes = ops.filter((o) => o.op !== " ").length;
  for (let k = 0; k < ops.length; k++) {
    const o = ops[k]!;
    if (!keep[k]) {
      if (!skipped) lines.push("  …");
      skipped = true;
      continue;
    }
    if (lines.length >= DIFF_MAX_LINES) {
      lines.push(`  … and ${changes - shownChanges} more changed lines (${a.length} lines recorded, ${b.length} now)`);
      return lines.join("\n");
    }
    lines.push(`${o.op} ${o.line.length > DIFF_MAX_WIDTH ? `${o.line.slice(0, DIFF_MAX_WIDTH)}… (${o.line.length} characters)` : o.line}`);
    if (o.op !== " ") shownChanges++;
    skipped = false;
  }
  if (end > context) lines.push("  …");
  return lines.join("\n");
}

/** The changed middle of the texts: by LCS when the table is small enough, else all removed then all added. */
function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > LCS_MAX_CELLS) return [...a.map((line): Op => ({ op: "-", line })), ...b.map((line): Op => ({ op: "+", line }))];
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: " ", line: a[i]! });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ op: "-", line: a[i++]! });
    else ops.push({ op: "+", line: b[j++]! });
  }
  return ops;
}

/** Which lines to show: every change and up to `context` lines either side of one (linear). */
function keptLines(ops: Op[], context: number): boolean[] {
  const keep = new Array<boolean>(ops.length).fill(false);
  let last = -Infinity;
  for (let k = 0; k < ops.length; k++) {
    if (ops[k]!.op !== " ") last = k;
    if (k - last <= context) keep[k] = true;
  }
  last = Infinity;
  for (let k = ops.length - 1; k >= 0; k--) {
    if (ops[k]!.op !== " ") last = k;
    if (last - k <= context) keep[k] = true;
  }
  return keep;
}
