/**
 * Resumable statements (docs/decisions/0016-waiting-tasks-free-their-thread.md). A worker task
 * run by a thread that carries several tasks gets its body, and the bodies of the user functions
 * it calls at statement level, in this form: generators over statements that yield a `Wait`
 * where the task waits for a mailbox message or a delegation, so that its thread runs other
 * tasks meanwhile, and resume with the answer. Every expression is still compiled by the
 * closure compiler (and runs of statements that cannot wait by the ordinary compiler, codegen
 * included), so each node keeps exactly one meaning: the waits' own semantics are the shared
 * helpers of objects.ts and call.ts.
 *
 * A statement waits without its thread when it is `var x = E`, `x = E` (a name), `return E` or
 * `E`, where E is `mb.receive(ms)` on a mailbox, `await X` / `X.await`, or a call of a user
 * function (then run in its resumable form) or of a worker (a call statement runs it), or an
 * untyped think with no `do` block (`suspendableThink`: its request goes to the driver while the
 * agent answers, when the agent can `defer` it). Blocks, `if`, `while`, `for` and `try` holding
 * such statements are resumable too. Every other wait (a receive inside an expression, in a `do`
 * block, in a think; a think with `do` blocks or a type) blocks the thread as before.
 */
import type { AwaitExpr, CallExpr, Expr, ForStmt, Ident, IfStmt, MemberExpr, Node, Stmt, TryStmt, WhileStmt } from "@patchwork/parser";
import { isBuiltinName } from "../builtins/index.js";
import { CallSite } from "../builtins/types.js";
import { errorObject, RuntimeError } from "../errors.js";
import type { JoinResult, ReceiveResult, ThinkAnswer, ThinkRequest } from "../ports.js";
import { BREAK, NORMAL, RETURN, type Runtime } from "../runtime.js";
import { PwFunction, type ResumableFunction, type Value } from "../values.js";
import { awaitValue, delegate, PwMailbox, PwPending, PwTask, PwWorkerFn } from "../workers/objects.js";
import { callValue, evalArgs, methodInvoker, tooMany } from "./call.js";
import { generateBody } from "./codegen.js";
import { compileCond, compileExpr } from "./expr.js";
import { compileRangeBounds } from "./ops.js";
import { childCx, type Cx } from "./scope.js";
import { compileStatements, compileStmt, iterationItems } from "./stmt.js";
import { loopEnd, loopItem, loopStart, rangeItems } from "./loop-progress.js";
import { suspendableThink, thinkGen, typedThink } from "./resumable-think.js";
import type { GenExpr, Resumable, Wait, WaitAnswer } from "./resumable-types.js";
import type { StmtFn } from "./types.js";

export type { GenExpr, Resumable, Wait, WaitAnswer } from "./resumable-types.js";

type GenStmt = (f: Value[]) => Resumable<number>;

// ───────────────────────────── which statements wait ─────────────────────────────

/** Whether `e`, at the top of a statement, is a wait the resumable form can suspend at. */
export function waitShape(e: Expr): boolean {
  if (e.kind === "Await") return true;
  if (e.kind === "Think") return suspendableThink(e);
  if (e.kind !== "Call") return false;
  const c = e.callee;
  if (c.kind === "Member") return c.property === "receive";
  return !(c.kind === "Ident" && isBuiltinName(c.name));
}

/** Whether statement `s` may suspend (statically: a user call may turn out not to wait). */
export function canWait(s: Stmt): boolean {
  switch (s.kind) {
    case "ExprStmt": {
      const e = s.expr;
      return waitShape(e) || (e.kind === "Assign" && e.target.kind === "Ident" && waitShape(e.value));
    }
    case "VarDecl":
      return s.init !== null && waitShape(s.init);
    case "Return":
      return s.value !== null && waitShape(s.value);
    case "Block":
      return s.statements.some(canWait);
    case "If":
      return canWait(s.then) || (s.else !== null && s.else !== undefined && canWait(s.else));
    case "While":
    case "For":
      return s.body.statements.some(canWait);
    case "Try":
      return s.body.statements.some(canWait) || s.handler.statements.some(canWait);
    default:
      return false;
  }
}

// ───────────────────────────── statements ─────────────────────────────

/** Statements that cannot wait, compiled as they would be anywhere else. */
function ordinary(stmts: Stmt[], cx: Cx): StmtFn {
  return cx.m.rt.codegen ? generateBody(stmts, cx) : compileStatements(stmts, cx);
}

/** `stmts` in resumable form (in scope `cx`), or null when none of them can wait: nothing is compiled then. */
export function resumableStatements(stmts: Stmt[], cx: Cx): GenStmt | null {
  const waits = stmts.map(canWait);
  if (!waits.includes(true)) return null;
  const parts: { gen: GenStmt | null; plain: StmtFn | null }[] = [];
  let run: Stmt[] = [];
  const flush = () => {
    if (run.length > 0) parts.push({ gen: null, plain: ordinary(run, cx) });
    run = [];
  };
  stmts.forEach((s, i) => {
    if (!waits[i]) return void run.push(s);
    flush();
    parts.push({ gen: resumableStmt(s, cx), plain: null });
  });
  flush();
  const n = parts.length;
  return function* (f) {
    for (let i = 0; i < n; i++) {
      const p = parts[i]!;
      const sig = p.gen ? yield* p.gen(f) : p.plain!(f);
      if (sig !== NORMAL) return sig;
    }
    return NORMAL;
  };
}

/** Any statement as a generator (one that cannot wait runs its ordinary form). */
function stmtGen(s: Stmt, cx: Cx): GenStmt {
  if (canWait(s)) return resumableStmt(s, cx);
  const plain = compileStmt(s, cx);
  return function* (f) {
    return plain(f);
  };
}

function resumableStmt(s: Stmt, cx: Cx): GenStmt {
  if (typedThink(s, cx)) return plainGen(compileStmt(s, cx));
  switch (s.kind) {
    case "ExprStmt": {
      const e = s.expr;
      if (e.kind === "Assign") return viaSlot(e.value, cx, (id) => compileStmt({ ...s, expr: { ...e, value: id } }, cx));
      const w = waitExpr(e, cx, true);
      return function* (f) {
        yield* w(f);
        return NORMAL;
      };
    }
    case "VarDecl":
      return viaSlot(s.init!, cx, (id) => compileStmt({ ...s, init: id }, cx));
    case "Return":
      return viaSlot(s.value!, cx, (id) => compileStmt({ ...s, value: id }, cx));
    case "Block":
      return resumableStatements(s.statements, childCx(cx))!;
    case "If":
      return ifGen(s, cx);
    case "While":
      return whileGen(s, cx);
    case "For":
      return forGen(s, cx);
    case "Try":
      return tryGen(s, cx);
    default:
      throw new Error(`internal error: ${s.kind} cannot wait`);
  }
}

/**
 * `var x = E`, `x = E`, `return E`: E is evaluated resumably into a hidden local, then the
 * ordinary statement runs with that local in E's place (its stores, type checks, patterns).
 */
function viaSlot(e: Expr, cx: Cx, make: (id: Ident) => StmtFn): GenStmt {
  const w = waitExpr(e, cx, false);
  const name = `\0wait${cx.scope.fn.size}`;
  const slot = cx.scope.declare(name).slot;
  const rest = make({ kind: "Ident", name, span: e.span });
  return function* (f) {
    f[slot] = yield* w(f);
    return rest(f);
  };
}

function ifGen(s: IfStmt, cx: Cx): GenStmt {
  const test = compileCond(s.test, cx);
  const then = stmtGen(s.then, cx);
  const other = s.else ? stmtGen(s.else, cx) : null;
  return function* (f) {
    if (test(f)) return yield* then(f);
    return other ? yield* other(f) : NORMAL;
  };
}

function loopBodyGen(body: Stmt[], cx: Cx): GenStmt {
  const inner: Cx = { ...childCx(cx), loops: cx.loops + 1 };
  return resumableStatements(body, inner)!;
}

function whileGen(s: WhileStmt, cx: Cx): GenStmt {
  const test = compileCond(s.test, cx);
  const body = loopBodyGen(s.body.statements, cx);
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  if (!rt.events) {
    return function* (f) {
      while (test(f)) {
        if (++rt.steps >= rt.nextCheck) rt.check(s, file);
        const sig = yield* body(f);
        if (sig === BREAK) break;
        if (sig === RETURN) return RETURN;
      }
      return NORMAL;
    };
  }
  // A host listens: the loop tells it of its progress (loop-progress.ts, as stmt.ts's whileWithEvents).
  return function* (f) {
    const loop = loopStart(rt, s, file, null, null);
    let done = 0;
    try {
      for (; test(f); done++) {
        if (++rt.steps >= rt.nextCheck) rt.check(s, file);
        loopItem(rt, loop, done);
        const sig = yield* body(f);
        if (sig === BREAK || sig === RETURN) {
          loopEnd(rt, loop, true, done + 1);
          return sig === RETURN ? RETURN : NORMAL;
        }
      }
    } catch (e) {
      loopEnd(rt, loop, false, done);
      throw e;
    }
    loopEnd(rt, loop, true, done);
    return NORMAL;
  };
}

function forGen(s: ForStmt, cx: Cx): GenStmt {
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  const isRange = s.iterable.kind === "Range";
  const bounds = isRange ? compileRangeBounds(s.iterable as Expr & { kind: "Range" }, cx) : null;
  const iter = isRange ? null : compileExpr(s.iterable, cx);
  const varCx = childCx(cx);
  const slot = varCx.scope.declare(s.name).slot;
  const body = loopBodyGen(s.body.statements, varCx);
  const ev = rt.events;
  const site = new CallSite(rt, file, s.iterable.span, "for", s);
  return function* (f) {
    let items: Value[] | null = null;
    let a = 0;
    let b = -1;
    if (bounds) [a, b] = bounds(f);
    else {
      items = iterationItems(iter!(f), s, site);
      b = items.length - 1;
    }
    if (!ev) {
      for (let i = a; i <= b; i++) {
        if (++rt.steps >= rt.nextCheck) rt.check(s, file);
        f[slot] = items ? items[i]! : i;
        const sig = yield* body(f);
        if (sig === BREAK) break;
        if (sig === RETURN) return RETURN;
      }
      return NORMAL;
    }
    // A host listens: the loop tells it of its progress (loop-progress.ts, as stmt.ts's forWithEvents).
    const loop = loopStart(rt, s, file, items ?? rangeItems(a, b), Math.max(0, b - a + 1));
    let done = 0;
    try {
      for (let i = a; i <= b; i++, done++) {
        if (++rt.steps >= rt.nextCheck) rt.check(s, file);
        loopItem(rt, loop, done);
        f[slot] = items ? items[i]! : i;
        const sig = yield* body(f);
        if (sig === BREAK) {
          done++;
          break;
        }
        if (sig === RETURN) {
          loopEnd(rt, loop, true, done + 1);
          return RETURN;
        }
      }
    } catch (e) {
      loopEnd(rt, loop, false, done);
      throw e;
    }
    loopEnd(rt, loop, true, done);
    return NORMAL;
  };
}

function tryGen(s: TryStmt, cx: Cx): GenStmt {
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  const body = stmtGen(s.body, cx);
  const hcx = childCx(cx);
  const slot = s.param ? hcx.scope.declare(s.param).slot : -1;
  const handlerList = s.handler.statements;
  const handler = resumableStatements(handlerList, hcx) ?? plainGen(compileStatements(handlerList, hcx));
  return function* (f) {
    const depth = rt.depth;
    let err: RuntimeError;
    try {
      return yield* body(f);
    } catch (e) {
      const x = e instanceof RangeError ? rt.fromRangeError(e, s.span, file) : e;
      if (!(x instanceof RuntimeError) || x.fatal) throw x;
      err = x;
    }
    rt.depth = depth;
    if (slot >= 0) f[slot] = errorObject(err);
    return yield* handler(f);
  };
}

function plainGen(plain: StmtFn): GenStmt {
  return function* (f) {
    return plain(f);
  };
}

// ───────────────────────────── the waits ─────────────────────────────

/**
 * E at the top of a statement (`waitShape`); `statement`: E is the statement itself (a call
 * statement runs the task it makes, a think statement shows its answer).
 */
function waitExpr(e: Expr, cx: Cx, statement: boolean): GenExpr {
  if (e.kind === "Await") return awaitGen(e, cx);
  if (e.kind === "Think") return thinkGen(e, cx, statement);
  const call = e as CallExpr;
  const inner = call.callee.kind === "Member" ? receiveGen(call, call.callee, cx) : callGen(call, cx);
  if (!statement) return inner;
  const rt = cx.m.rt;
  const site = new CallSite(rt, cx.m.fileName, call.span, "worker", call);
  return function* (f) {
    const v = yield* inner(f);
    return v instanceof PwTask ? yield* runTaskGen(rt, v, site) : v;
  };
}

function awaitGen(e: AwaitExpr, cx: Cx): GenExpr {
  const op = e.operand;
  const opGen = op.kind === "Call" && waitShape(op) ? waitExpr(op, cx, false) : null;
  const opFn = opGen ? null : compileExpr(op, cx);
  const rt = cx.m.rt;
  const site = new CallSite(rt, cx.m.fileName, e.span, "await", e);
  return function* (f) {
    const v = opGen ? yield* opGen(f) : opFn!(f);
    return yield* awaitValueGen(rt, v, site);
  };
}

/** `awaitValue` without blocking: a delegation or task not settled yet is waited for by the driver. */
function* awaitValueGen(rt: Runtime, v: Value, site: CallSite): Resumable<Value> {
  if (v instanceof PwPending) return yield* joinGen(v, site.node, site.file);
  if (v instanceof PwTask) return yield* runTaskGen(rt, v, site);
  return awaitValue(rt, v, site);
}

function* joinGen(p: PwPending, node: Node, file: string): Resumable<Value> {
  const group = p.unresolved;
  if (group !== null) p.resolve((yield { kind: "join", group }) as JoinResult, node, file);
  return p.await(node, file);
}

/** `runTask` (objects.ts) without blocking. */
function* runTaskGen(rt: Runtime, task: PwTask, site: CallSite): Resumable<Value> {
  const values = yield* joinGen(delegate(rt, [task], site), task.node, task.file);
  return (values as Value[])[0] ?? null;
}

/** `o.receive(ms)`: on a mailbox, waits without blocking; any other method call is the ordinary one. */
function receiveGen(call: CallExpr, callee: MemberExpr, cx: Cx): GenExpr {
  const obj = compileExpr(callee.object, cx);
  const args = call.args.map((a) => compileExpr(a, cx));
  const invoke = methodInvoker(call, callee, args, cx);
  const site = new CallSite(cx.m.rt, cx.m.fileName, call.span, callee.property, call);
  return function* (f) {
    const o = obj(f);
    if (!(o instanceof PwMailbox)) return invoke(o, f);
    const ms = o.receiveTimeout(evalArgs(args, f), site);
    const r = (yield { kind: "receive", mailbox: o.name, timeoutMs: ms }) as ReceiveResult;
    return o.received(r, ms, site);
  };
}

/** A call of a user function runs its resumable form; anything else is the ordinary call. */
function callGen(call: CallExpr, cx: Cx): GenExpr {
  const callee = call.callee;
  if (callee.kind === "Ident" && !cx.scope.lookup(callee.name) && isBuiltinName(callee.name)) {
    const plain = compileExpr(call, cx);
    return function* (f) {
      return plain(f);
    };
  }
  const fnExpr = compileExpr(callee, cx);
  const args = call.args.map((a) => compileExpr(a, cx));
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  const what = callee.kind === "Ident" ? `'${callee.name}'` : "the callee";
  return function* (f) {
    const fv = fnExpr(f);
    const r = fv instanceof PwFunction ? resumableOf(fv) : null;
    if (!r) return callValue(rt, fv, evalArgs(args, f), call, file, what);
    return yield* callResumable(rt, fv as PwFunction, r, evalArgs(args, f), call, file);
  };
}

function resumableOf(fn: PwFunction): ResumableFunction | null {
  if (fn.resumable === undefined) fn.resumable = fn.compileResumable ? fn.compileResumable(fn) : null;
  return fn.resumable;
}

/** `callValue` of a user function in its resumable form: the same arity, depth, steps and call-site accounting as `enter`. */
function* callResumable(rt: Runtime, fn: PwFunction, c: ResumableFunction, args: Value[], node: Node, file: string): Resumable<Value> {
  if (args.length > c.paramCount) tooMany(fn, args.length, node, file);
  const frame: Value[] = new Array(c.size);
  for (let i = 0; i < c.paramCount; i++) frame[i] = i < args.length ? args[i]! : null;
  if (++rt.depth > rt.maxDepth) rt.tooDeep(node, file);
  if (++rt.steps >= rt.nextCheck) rt.check(node, file);
  rt.callSite = node;
  const s = yield* (c.body(frame) as Resumable<number>);
  rt.depth--;
  if (s === RETURN) {
    const v = rt.ret;
    rt.ret = null;
    return v;
  }
  return null;
}

/**
 * An entry (a worker task's worker) run resumably: `callEntry` (modules.ts) without blocking.
 * A value that is itself a task or a pending delegation is awaited, as there.
 */
export function* callEntryResumable(rt: Runtime, v: PwFunction | PwWorkerFn, args: Value[], fileName: string, name: string): Resumable<Value> {
  rt.entryRan = name;
  const fn = v instanceof PwWorkerFn ? v.fn : v;
  const r = resumableOf(fn);
  let value = r ? yield* callResumable(rt, fn, r, args, fn.decl, fileName) : callValue(rt, fn, args, fn.decl, fileName, `'${name}'`);
  for (;;) {
    if (value instanceof PwTask && !value.started) value = yield* runTaskGen(rt, value, new CallSite(rt, fileName, fn.decl.span, name, fn.decl));
    else if (value instanceof PwPending) value = yield* joinGen(value, fn.decl, fileName);
    else return value;
  }
}
