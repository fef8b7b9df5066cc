/** Statement compiler: each statement becomes a closure returning a completion signal. */
import type { Block, CallExpr, Expr, ForStmt, IfStmt, Node, ReturnStmt, Stmt, TryStmt, WhileStmt } from "@patchwork/parser";
import { errorObject, raise, RuntimeError } from "../errors.js";
import { CallSite } from "../builtins/types.js";
import { splitLinesChecked } from "../methods/string.js";
import { BREAK, CONTINUE, NORMAL, RETURN, type Runtime } from "../runtime.js";
import { describe } from "./expr.js";
import { compileCond, compileExpr, localSlot } from "./expr.js";
import { compileRangeBounds } from "./ops.js";
import { compileVarDecl } from "./patterns.js";
import { childCx, type Cx } from "./scope.js";
import { compileShellStmt } from "./shell.js";
import { loopEnd, loopItem, loopStart, rangeItems } from "./loop-progress.js";
import { compileShownThink, compileThink, isShownThink } from "./think.js";
import type { ExprFn, StmtFn } from "./types.js";
import type { Value } from "../values.js";
import { PwTask, runTask } from "../workers/objects.js";

/**
 * An expression used as a statement: a worker called this way still runs (`compileCallStatement`),
 * and a think's answer is shown (`compileShownThink`).
 */
export function compileExprStatement(e: Expr, cx: Cx): ExprFn {
  if (e.kind === "Call") return compileCallStatement(e, cx);
  return isShownThink(e) ? compileShownThink(e, cx) : compileExpr(e, cx);
}

export function compileStmt(s: Stmt, cx: Cx): StmtFn {
  switch (s.kind) {
    case "ExprStmt": {
      const direct = compileLocalAssignStmt(s.expr, cx);
      if (direct) return direct;
      const e = compileExprStatement(s.expr, cx);
      return (f) => {
        e(f);
        return NORMAL;
      };
    }
    case "VarDecl":
      return compileVarDecl(s, cx);
    case "Block":
      return compileBlock(s, cx);
    case "If":
      return compileIf(s, cx);
    case "While":
      return compileWhile(s, cx);
    case "For":
      return compileFor(s, cx);
    case "Return":
      return compileReturn(s, cx);
    case "Succeed": {
      const rt = cx.m.rt;
      return () => {
        rt.ret = null;
        return RETURN;
      };
    }
    case "Break":
    case "Continue":
      return compileJump(s, cx, s.kind === "Break" ? BREAK : CONTINUE);
    case "Try":
      return compileTry(s, cx);
    case "TypeDecl":
      cx.scope.declareType(s.name, s.type);
      return () => NORMAL;
    case "ShellStmt":
      return compileShellStmt(s, cx);
  }
}

/** `x = e` on an untyped local, as a statement: one closure instead of two. */
function compileLocalAssignStmt(e: Expr, cx: Cx): StmtFn | null {
  if (e.kind !== "Assign") return null;
  const slot = localSlot(e.target, cx);
  if (slot < 0 || cx.scope.lookup((e.target as Expr & { name: string }).name)!.type) return null;
  const v = compileExpr(e.value, cx);
  return (f) => {
    f[slot] = v(f);
    return NORMAL;
  };
}

export function compileStatements(stmts: Stmt[], cx: Cx): StmtFn {
  const fns = stmts.map((s) => compileStmt(s, cx));
  const n = fns.length;
  if (n === 0) return () => NORMAL;
  if (n === 1) return fns[0]!;
  if (n === 2) {
    const a = fns[0]!;
    const b = fns[1]!;
    return (f) => {
      const s = a(f);
      return s !== NORMAL ? s : b(f);
    };
  }
  return (f) => {
    for (let i = 0; i < n; i++) {
      const s = fns[i]!(f);
      if (s !== NORMAL) return s;
    }
    return NORMAL;
  };
}

export function compileBlock(b: Block, cx: Cx): StmtFn {
  return compileStatements(b.statements, childCx(cx));
}

function compileIf(s: IfStmt, cx: Cx): StmtFn {
  const guard = compileGuard(s, cx);
  if (guard) return guard;
  const test = compileCond(s.test, cx);
  const then = compileBlock(s.then, cx);
  const other = s.else ? (s.else.kind === "If" ? compileIf(s.else, cx) : compileBlock(s.else, cx)) : null;
  if (!other) return (f) => (test(f) ? then(f) : NORMAL);
  return (f) => (test(f) ? then(f) : other(f));
}

/** `if c { return e }` without else (a guard clause): one closure for test and return. */
function compileGuard(s: IfStmt, cx: Cx): StmtFn | null {
  const only = s.then.statements.length === 1 ? s.then.statements[0]! : null;
  if (s.else || !only || only.kind !== "Return" || !only.value || only.value.kind === "Think") return null;
  const test = compileCond(s.test, cx);
  const rt = cx.m.rt;
  const inner = childCx(cx);
  const slot = localSlot(only.value, inner);
  if (slot >= 0) {
    return (f) => {
      if (!test(f)) return NORMAL;
      rt.ret = f[slot] as Value;
      return RETURN;
    };
  }
  const value = compileExpr(only.value, inner);
  return (f) => {
    if (!test(f)) return NORMAL;
    rt.ret = value(f);
    return RETURN;
  };
}

function compileJump(s: Node, cx: Cx, signal: number): StmtFn {
  if (cx.loops === 0) {
    const file = cx.m.fileName;
    const name = signal === BREAK ? "break" : "continue";
    return () => raise("PW3014", s.span, file, { name });
  }
  return () => signal;
}

function compileReturn(s: ReturnStmt, cx: Cx): StmtFn {
  const rt = cx.m.rt;
  const fn = cx.scope.fn;
  let value: ExprFn;
  if (!s.value) value = () => null;
  else if (s.value.kind === "Think" && fn.returnType)
    value = compileThink(s.value, cx, { type: fn.returnType, scope: fn.returnScope ?? cx.scope });
  else value = compileExpr(s.value, cx);
  return (f) => {
    rt.ret = value(f);
    return RETURN;
  };
}

function loopBody(body: Block, cx: Cx): { cx: Cx; body: StmtFn } {
  const inner: Cx = { ...childCx(cx), loops: cx.loops + 1 };
  return { cx: inner, body: compileStatements(body.statements, inner) };
}

function compileWhile(s: WhileStmt, cx: Cx): StmtFn {
  const test = compileCond(s.test, cx);
  const { body } = loopBody(s.body, cx);
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  if (rt.events) return whileWithEvents(s, cx, test, body);
  return (f) => {
    while (test(f)) {
      if (++rt.steps >= rt.nextCheck) rt.check(s, file);
      const sig = body(f);
      if (sig !== NORMAL) {
        if (sig === BREAK) break;
        if (sig === RETURN) return RETURN;
      }
    }
    return NORMAL;
  };
}

/** A `while` loop that tells the host of its progress (its iterations; no total): a host listens. */
function whileWithEvents(s: WhileStmt, cx: Cx, test: (f: Value[]) => boolean, body: StmtFn): StmtFn {
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    const loop = loopStart(rt, s, file, null, null);
    let done = 0;
    try {
      for (; test(f); done++) {
        if (++rt.steps >= rt.nextCheck) rt.check(s, file);
        loopItem(rt, loop, done);
        const sig = body(f);
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

function compileFor(s: ForStmt, cx: Cx): StmtFn {
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  const isRange = s.iterable.kind === "Range";
  const bounds = isRange ? compileRangeBounds(s.iterable as Expr & { kind: "Range" }, cx) : null;
  const iter = isRange ? null : compileExpr(s.iterable, cx);
  const varCx = childCx(cx);
  const slot = varCx.scope.declare(s.name).slot;
  const { body } = loopBody(s.body, varCx);
  const step = (f: Value[], v: Value): number => {
    if (++rt.steps >= rt.nextCheck) rt.check(s, file);
    f[slot] = v;
    return body(f);
  };
  const site = isRange ? null : new CallSite(rt, file, s.iterable.span, "for", s);
  if (rt.events) return forWithEvents(s, cx, step, bounds, (f) => iterationItems(iter!(f), s, site!));
  if (bounds) {
    return (f) => {
      const [a, b] = bounds(f);
      for (let i = a; i <= b; i++) {
        const sig = step(f, i);
        if (sig === BREAK) break;
        if (sig === RETURN) return RETURN;
      }
      return NORMAL;
    };
  }
  return (f) => {
    const items = iterationItems(iter!(f), s, site!);
    const n = items.length;
    for (let i = 0; i < n; i++) {
      const sig = step(f, items[i]!);
      if (sig === BREAK) break;
      if (sig === RETURN) return RETURN;
    }
    return NORMAL;
  };
}

/** A `for` loop that tells the host of its progress (loop-progress.ts): a host listens. */
function forWithEvents(
  s: ForStmt,
  cx: Cx,
  step: (f: Value[], v: Value) => number,
  bounds: ((f: Value[]) => [number, number]) | null,
  itemsOf: (f: Value[]) => Value[],
): StmtFn {
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    let a = 0;
    let b = -1;
    let items: Value[] | null = null;
    if (bounds) [a, b] = bounds(f);
    else {
      items = itemsOf(f);
      b = items.length - 1;
    }
    const loop = loopStart(rt, s, file, items ?? rangeItems(a, b), Math.max(0, b - a + 1));
    let done = 0;
    try {
      for (let i = a; i <= b; i++, done++) {
        loopItem(rt, loop, done);
        const sig = step(f, items ? items[i]! : i);
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

export function iterationItems(v: Value, s: ForStmt, site: CallSite): Value[] {
  if (Array.isArray(v)) return v.slice();
  if (typeof v === "string") return splitLinesChecked(v, site, "the lines of the string");
  if (v instanceof Map) return [...v.keys()];
  return raise("PW3011", s.iterable.span, site.file, { actual: describe(v) });
}

function compileTry(s: TryStmt, cx: Cx): StmtFn {
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  const body = compileBlock(s.body, cx);
  const hcx = childCx(cx);
  const slot = s.param ? hcx.scope.declare(s.param).slot : -1;
  const handler = compileStatements(s.handler.statements, hcx);
  return (f) => {
    const depth = rt.depth;
    let err: RuntimeError;
    try {
      return body(f);
    } catch (e) {
      const x = e instanceof RangeError ? rt.fromRangeError(e, s.span, file) : e;
      if (!(x instanceof RuntimeError) || x.fatal) throw x;
      err = x;
    }
    rt.depth = depth;
    if (slot >= 0) f[slot] = errorObject(err);
    return handler(f);
  };
}

/**
 * A call as a statement: a worker called directly (`w(x)`, not delegated) runs, as a call
 * does, and its value is the statement's (language.md §4).
 */
export function compileCallStatement(e: CallExpr, cx: Cx): ExprFn {
  const call = compileExpr(e, cx);
  const run = taskRunner(e, cx);
  return (f) => {
    const v = call(f);
    return v instanceof PwTask ? run(v) : v;
  };
}

/** Runs a task made by a call statement, waiting for its value. */
export function taskRunner(e: CallExpr, cx: Cx): (t: PwTask) => Value {
  const site = new CallSite(cx.m.rt, cx.m.fileName, e.span, "worker", e);
  const rt = cx.m.rt;
  return (t) => runTask(rt, t, site);
}
