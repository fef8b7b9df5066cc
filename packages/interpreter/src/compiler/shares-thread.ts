/**
 * Whether a worker's tasks may share a thread with other tasks (decision 0016): every wait in
 * the code it can run frees the thread (a statement-level shape of resumable.ts), and it neither
 * thinks nor runs shell commands (a think or a command holds its thread for the whole turn, and
 * the tasks that share the thread could not resume meanwhile). A task that fails the test gets a
 * thread of its own, as before: a wait that blocks a shared thread could wait for a task that
 * the same thread carries, which could then never resume.
 *
 * Conservative: it looks at every function of the task's program (task-program.ts keeps the ones
 * its worker can reach), and a function called inside an expression counts as waiting when its
 * body has any wait (it then runs in its ordinary, blocking form).
 */
import type { Expr, FunDecl, Program, Stmt } from "@patchwork/parser";
import { canWait, waitShape } from "./resumable.js";

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
  if (all.some((d) => some(d.body, (n) => n.kind === "Think" || n.kind === "Shell" || n.kind === "ShellStmt"))) return false;
  // A worker called as a statement runs (and waits for) its task.
  const statementCalls = new Set<unknown>();
  const noteCall = (n: AnyNode): boolean => {
    if (n.kind === "ExprStmt") statementCalls.add(n.expr);
    return false;
  };
  for (const d of all) some(d.body, noteCall);
  const waiting = new Set<string>();
  const waits = (n: AnyNode): boolean => {
    if (n.kind === "Await") return true;
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
  return all.every((d) => statementsOk(d.body.statements, free));
}

/** Every wait of `stmts` is one its resumable form suspends at. */
function statementsOk(stmts: Stmt[], free: (x: unknown) => boolean): boolean {
  return stmts.every((s) => statementOk(s, free));
}

function statementOk(s: Stmt, free: (x: unknown) => boolean): boolean {
  switch (s.kind) {
    case "ExprStmt":
    case "VarDecl":
    case "Return": {
      if (!canWait(s)) return free(s);
      const e = s.kind === "ExprStmt" ? s.expr : s.kind === "VarDecl" ? s.init! : s.value!;
      if (e.kind === "Assign") return free(e.target) && waitOk(e.value, free);
      return (s.kind !== "VarDecl" || free(s.pattern)) && waitOk(e, free);
    }
    case "Block":
      return statementsOk(s.statements, free);
    case "If":
      return free(s.test) && statementOk(s.then, free) && (!s.else || statementOk(s.else, free));
    case "While":
      return free(s.test) && statementsOk(s.body.statements, free);
    case "For":
      return free(s.iterable) && statementsOk(s.body.statements, free);
    case "Try":
      return statementsOk(s.body.statements, free) && statementsOk(s.handler.statements, free);
    default:
      return free(s);
  }
}

/** A wait at the top of a statement: its parts wait nowhere else. */
function waitOk(e: Expr, free: (x: unknown) => boolean): boolean {
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
