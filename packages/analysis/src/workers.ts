/**
 * What the analysis knows of the worker features' members (docs/workers.md): `self.delegate`,
 * `self.session` and its members, a delegation's `.settle()` and `.await`. Their one-line docs
 * (hover, completion) and the checks of `settle()`: its outcomes never awaited (PW5010), and
 * `settle()` on a delegation started without it (PW5011, PW3008 at run time).
 */
import type { CallExpr, Expr, TopLevel } from "@patchwork/parser";
import type { Finding } from "./codes.js";
import { walk } from "./walk.js";

export const WORKER_MEMBER_DOCS = {
  delegate:
    "self.delegate([w1(…), w2(…)]): starts the worker tasks at once. `.await` gives their values in order; the first failure cancels the others and is raised. `.settle().await` gives every task's outcome instead.",
  session: "self.session: the run's `id`, `timestamp`, scratch `dir` and `mailbox.NAME`, shared by all its workers.",
  settle:
    "self.delegate(tasks).settle(): the tasks all run to their end, whatever the others do. `.await` gives, in order, `{ok: true, value}` or `{ok: false, error}` per task, the error as `catch` would see it. Write it on the delegation itself: a delegation started without it is fail-fast.",
  await:
    "`p.await` / `await p`: waits for a delegation (its tasks' values in order; after `settle()`, their outcomes) or runs a task; any other value is itself.",
  id: "self.session.id: the run's id (a ULID), the same in every worker.",
  timestamp: "self.session.timestamp: when the run started, ISO 8601 in UTC.",
  dir: "self.session.dir: the run's scratch directory, created on first use, removed at the end of the run (unless --keep-session).",
  mailbox: "self.session.mailbox.NAME: a FIFO queue shared by the run's workers: `send(v)`, `receive(ms)`.",
} as const;

type MemberName = keyof typeof WORKER_MEMBER_DOCS;

export interface MemberItem {
  label: MemberName;
  documentation: string;
}

const items = (names: MemberName[]): MemberItem[] => names.map((label) => ({ label, documentation: WORKER_MEMBER_DOCS[label] }));

/**
 * The members that make sense after `before` (the text before the cursor, which ends in `.` and
 * maybe part of a name), or null when it is no worker object: `self.`, `self.session.`, a
 * delegation `self.delegate(…).` and a settled one `….settle().`.
 */
export function workerMemberCompletion(before: string): MemberItem[] | null {
  if (/\bself\s*\.\s*session\s*\.\s*\w*$/.test(before)) return items(["id", "timestamp", "dir", "mailbox"]);
  if (/\bself\s*\.\s*\w*$/.test(before)) return items(["delegate", "session"]);
  const call = /\)\s*\.\s*\w*$/.exec(before);
  if (!call) return null;
  const open = openingParen(before, call.index);
  if (open < 0) return null;
  const callee = before.slice(Math.max(0, open - 200), open);
  if (/\bself\s*\.\s*delegate\s*$/.test(callee)) return items(["settle", "await"]);
  if (/\)\s*\.\s*settle\s*$/.test(callee)) return items(["await"]);
  return null;
}

/** Where the `(` matching the `)` at `close` is (brackets counted, within 20,000 characters), or -1. */
function openingParen(text: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0 && i > close - 20_000; i--) {
    const c = text[i];
    if (c === ")" || c === "]" || c === "}") depth++;
    else if (c === "(" || c === "[" || c === "{") {
      depth--;
      if (depth === 0) return c === "(" ? i : -1;
    }
  }
  return -1;
}

/** `self.delegate(…)`. */
function isDelegateCall(e: Expr): e is CallExpr {
  return e.kind === "Call" && e.callee.kind === "Member" && e.callee.property === "delegate" && e.callee.object.kind === "Self";
}

/** `X.settle(…)`. */
function isSettleCall(e: Expr): e is CallExpr & { callee: { kind: "Member"; object: Expr } } {
  return e.kind === "Call" && e.callee.kind === "Member" && e.callee.property === "settle";
}

/** The worker member under `local` (an offset into the unit): its doc and the range of its name. */
export function workerMemberAt(body: readonly TopLevel[], local: number): { doc: string; start: number; end: number } | null {
  let found: { doc: string; start: number; end: number } | null = null;
  walk(body, (n) => {
    if (found) return;
    let name: MemberName | null = null;
    let start = 0;
    if (n.kind === "Member") {
      const o = n.object;
      const p = n.property;
      if (o.kind === "Self" && (p === "delegate" || p === "session")) name = p;
      else if (p === "settle" && isDelegateCall(o)) name = p;
      else if (o.kind === "Member" && o.object.kind === "Self" && o.property === "session" && (p === "id" || p === "timestamp" || p === "dir" || p === "mailbox")) name = p;
      start = n.span.end.offset - p.length;
    } else if (n.kind === "Await") {
      name = "await";
      start = n.postfix ? n.span.end.offset - 5 : n.span.start.offset;
    }
    if (name && local >= start && local <= start + name.length) found = { doc: WORKER_MEMBER_DOCS[name], start, end: start + name.length };
  });
  return found;
}

/**
 * The checks of `settle()` in a unit: PW5010 where a settled delegation is a statement (its
 * outcomes are never awaited), PW5011 where `p.settle()` names a variable only ever given a
 * delegation started without it (PW3008 at run time), PW5002 for `settle` with arguments.
 */
export function settleFindings(body: readonly TopLevel[]): Finding[] {
  const out: Finding[] = [];
  // Names given a fail-fast delegation, and names given anything else (then not reported).
  const failFast = new Set<string>();
  const other = new Set<string>();
  const settles: CallExpr[] = [];
  walk(body, (n) => {
    if (n.kind === "VarDecl" && n.pattern.kind === "IdentPattern") (n.init && isDelegateCall(n.init) ? failFast : other).add(n.pattern.name);
    else if (n.kind === "Assign" && n.target.kind === "Ident") (isDelegateCall(n.value) ? failFast : other).add(n.target.name);
    else if (n.kind === "ExprStmt" && isSettleCall(n.expr) && isDelegateCall(n.expr.callee.object)) {
      out.push({ code: "PW5010", start: n.expr.span.start.offset, end: n.expr.span.end.offset, args: {} });
    } else if (n.kind === "Call" && isSettleCall(n)) settles.push(n);
  });
  for (const call of settles) {
    const receiver = (call.callee as { object: Expr }).object;
    if (call.args.length > 0 && isDelegateCall(receiver)) {
      out.push({ code: "PW5002", start: call.span.start.offset, end: call.span.end.offset, args: { name: "settle", expected: 0, actual: call.args.length } });
    }
    if (receiver.kind === "Ident" && failFast.has(receiver.name) && !other.has(receiver.name)) {
      out.push({ code: "PW5011", start: call.span.start.offset, end: call.span.end.offset, args: { name: receiver.name } });
    }
  }
  return out;
}
