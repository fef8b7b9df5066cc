/**
 * Whether a worker's tasks may share a thread with other tasks (decision 0016): every wait in
 * the code it can run frees the thread (a statement-level shape of resumable.ts), its thinks are
 * all such shapes (untyped, with no `do` block: `suspendableThink`), and it runs no shell command
 * (a command, or a think that blocks, holds its thread for the whole turn, and the tasks that
 * share the thread could not resume meanwhile; a `do` block runs on the task's thread and may
 * block it, and an agent that serialises its calls could then deadlock). A task that fails the test gets a
 * thread of its own, as before: a wait that blocks a shared thread could wait for a task that
 * the same thread carries, which could then never resume.
 *
 * Conservative: it looks at every function of the task's program (task-program.ts keeps the ones
 * its worker can reach), and a function called inside an expression counts as waiting when its
 * body has any wait (it then runs in its ordinary, blocking form).
 */
import type { Expr, FunDecl, Program, Stmt } from "@patchwork/parser";
import { canWait, waitShape } from "./resumable.js";
import { suspendableThink } from "./resumable-think.js";

type AnyNode = { kind?: unknown } & Record<string, unknown>;

export function sharesThread(program: Program): boolean {
  const fns = new Map<string, FunDecl[]>();
  const workers = new Set<string>();
  const add = (name: string, d: FunDecl) => fns.set(name, [...(fns.get(name) ?? []), d]);
  for (const item of program.body) {
    if (item.kind === "FunDecl") {
      add(item.name, item);
      if (item.flavor === "worker") workers.add(item.name);
    } else if (item.kind === "TraitDecl") for (const m of item.methods) add(m.name, m);
  }
  const all = [...fns.values()].flat();
  if (all.some((d) => some(d.body, (n) => n.kind === "Shell" || n.kind === "ShellStmt"))) return false;
  // Names declared with a type anywhere: `x = think {…}` for such an `x` is a typed think.
  const typedNames = new Set<string>();
  some(program.body, (n) => {
    if (n.kind === "VarDecl" && n.type && (n.pattern as AnyNode).kind === "IdentPattern") typedNames.add((n.pattern as { name: string }).name);
    return false;
  });
  // A worker called as a statement runs (and waits for) its task.
  const statementCalls = new Set<unknown>();
  const noteCall = (n: AnyNode): boolean => {
    if (n.kind === "ExprStmt") statementCalls.add(n.expr);
    return false;
  };
  for (const d of all) some(d.body, noteCall);
  const waiting = new Set<string>();
  const waits = (n: AnyNode): boolean => {
    // Every think waits (for the agent); only an untyped one with no `do` block, at the top of a statement, frees the thread.
    if (n.kind === "Await" || n.kind === "Think") return true;
    if (n.kind !== "Call") return false;
    const callee = n.callee as Expr;
    if (callee.kind === "Member") return callee.property === "receive" || waiting.has(callee.property);
    if (callee.kind !== "Ident") return false;
    // Calling a worker makes a task; only a call statement runs it (and waits for it).
    return workers.has(callee.name) ? statementCalls.has(n) : waiting.has(callee.name);
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, decls] of fns) {
      if (waiting.has(name) || !decls.some((d) => some(d.body, waits))) continue;
      waiting.add(name);
      changed = true;
    }
  }
  const free = (x: unknown) => !some(x, waits);
  return all.every((d) => statementsOk(d.body.statements, { free, typedReturn: Boolean(d.returnType), typedNames }));
}

interface Check {
  free: (x: unknown) => boolean;
  /** The function declares a return type: its `return think {…}` (a worker's last think too) is typed. */
  typedReturn: boolean;
  typedNames: Set<string>;
}

/** Every wait of `stmts` is one its resumable form suspends at. */
function statementsOk(stmts: Stmt[], c: Check): boolean {
  return stmts.every((s) => statementOk(s, c));
}

function statementOk(s: Stmt, c: Check): boolean {
  const free = c.free;
  switch (s.kind) {
    case "ExprStmt":
    case "VarDecl":
    case "Return": {
      if (!canWait(s)) return free(s);
      const e = s.kind === "ExprStmt" ? s.expr : s.kind === "VarDecl" ? s.init! : s.value!;
      if (e.kind === "Assign") {
        const typed = e.value.kind === "Think" && e.target.kind === "Ident" && c.typedNames.has(e.target.name);
        return !typed && free(e.target) && waitOk(e.value, free);
      }
      if (e.kind === "Think" && (c.typedReturn || (s.kind === "VarDecl" && s.type))) return false;
      return (s.kind !== "VarDecl" || free(s.pattern)) && waitOk(e, free);
    }
    case "Block":
      return statementsOk(s.statements, c);
    case "If":
      return free(s.test) && statementOk(s.then, c) && (!s.else || statementOk(s.else, c));
    case "While":
      return free(s.test) && statementsOk(s.body.statements, c);
    case "For":
      return free(s.iterable) && statementsOk(s.body.statements, c);
    case "Try":
      return statementsOk(s.body.statements, c) && statementsOk(s.handler.statements, c);
    default:
      return free(s);
  }
}

/** A wait at the top of a statement: its parts wait nowhere else. */
function waitOk(e: Expr, free: (x: unknown) => boolean): boolean {
  if (e.kind === "Think") return suspendableThink(e) && free(e.prompt);
  if (e.kind === "Await") return e.operand.kind === "Call" && waitShape(e.operand) ? waitOk(e.operand, free) : free(e.operand);
  if (e.kind !== "Call") return free(e);
  const callee = e.callee;
  return (callee.kind === "Member" ? free(callee.object) : free(callee)) && free(e.args);
}

/** Whether any node under `x` (spans aside) satisfies `test`. */
function some(x: unknown, test: (n: AnyNode) => boolean): boolean {
  const stack: unknown[] = [x];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (const y of node) stack.push(y);
      continue;
    }
    const record = node as AnyNode;
    if (typeof record.kind === "string" && test(record)) return true;
    for (const key in record) if (key !== "span") stack.push(record[key]);
  }
  return false;
}
