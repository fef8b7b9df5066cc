/**
 * Expression compiler: a thin `switch (node.kind)` handing each kind to a small function
 * that returns a closure. Each node is compiled once; running a program runs closures.
 */
import type { ArrayLit, AssignExpr, AwaitExpr, Expr, Ident, ObjectLit, StringLit, UpdateExpr } from "@patchwork/parser";
import { CallSite } from "../builtins/types.js";
import { awaitValue, selfOf } from "../workers/objects.js";
import { raise, RuntimeError } from "../errors.js";
import { isBuiltinName, builtinValue } from "../builtins/index.js";
import { checkAssignable } from "../types/check.js";
import { toText, truthy, type PwObject, type Value } from "../values.js";
import { isThinkPrompt, THINK_PROMPT, WORKER_SCOPE } from "../errors.js";
import { compileIndex, compileMember, getIndex, getMember, setIndex, setMember } from "./access.js";
import { compileCall } from "./call.js";
import { compileBinary, compileLogical, compileRangeValue, compileUnary, equal } from "./ops.js";
import type { Cx } from "./scope.js";
import { compileShellExpr } from "./shell.js";
import { compileThink } from "./think.js";
import type { CondFn, ExprFn } from "./types.js";

export function compileExpr(e: Expr, cx: Cx): ExprFn {
  switch (e.kind) {
    case "Number": {
      const v = e.value;
      return () => v;
    }
    case "Bool": {
      const v = e.value;
      return () => v;
    }
    case "Null":
      return () => null;
    case "String":
      return compileString(e, cx);
    case "Ident":
      return compileIdent(e, cx);
    case "Array":
      return compileArray(e, cx);
    case "Object":
      return compileObject(e, cx);
    case "Unary":
      return compileUnary(e, cx);
    case "Binary":
      return compileBinary(e, cx);
    case "Logical":
      return compileLogical(e, cx);
    case "Range":
      return compileRangeValue(e, cx);
    case "Assign":
      return compileAssign(e, cx);
    case "Update":
      return compileUpdate(e, cx);
    case "Member":
      return compileMember(e, cx);
    case "Index":
      return compileIndex(e, cx);
    case "Call":
      return compileCall(e, cx);
    case "Think":
      return compileThink(e, cx, null);
    case "Shell":
      return compileShellExpr(e, cx, false) as ExprFn;
    case "ShellStatus": {
      const rt = cx.m.rt;
      return () => rt.lastStatus;
    }
    case "Throw":
      return compileThrow(e.value, e, cx);
    case "Self": {
      const rt = cx.m.rt;
      return () => selfOf(rt);
    }
    case "Await":
      return compileAwait(e, cx);
  }
}

/**
 * An expression in a condition (`if`, `while`, operands of `!`, `&&`, `||`): a shell
 * expression there is true exactly when it exits 0 instead of raising.
 */
export function compileCond(e: Expr, cx: Cx): CondFn {
  switch (e.kind) {
    case "Shell":
      return compileShellExpr(e, cx, true) as CondFn;
    case "Bool": {
      const v = e.value;
      return () => v;
    }
    case "Unary":
      if (e.op === "!") {
        const c = compileCond(e.operand, cx);
        return (f) => !c(f);
      }
      break;
    case "Logical": {
      const l = compileCond(e.left, cx);
      const r = compileCond(e.right, cx);
      return e.op === "&&" ? (f) => l(f) && r(f) : (f) => l(f) || r(f);
    }
    case "Binary":
      // Comparisons already produce booleans: no wrapper closure.
      if (e.op === "<" || e.op === ">" || e.op === "<=" || e.op === ">=" || e.op === "==" || e.op === "!=")
        return compileBinary(e, cx) as CondFn;
      break;
    case "Assign":
      // `if a = b` means `a == b` in the examples (the parser warns).
      if (e.target.kind === "Ident") {
        const l = compileExpr(e.target, cx);
        const r = compileExpr(e.value, cx);
        const rt = cx.m.rt;
        const file = cx.m.fileName;
        return (f) => equal(l(f), r(f), rt, e.span, file);
      }
      break;
  }
  const v = compileExpr(e, cx);
  return (f) => truthy(v(f));
}

/** An operand of `&&` / `||` in value position: shell operands are conditions. */
export function compileOperand(e: Expr, cx: Cx): ExprFn {
  return e.kind === "Shell" ? (compileShellExpr(e, cx, true) as ExprFn) : compileExpr(e, cx);
}

export function unsupported(e: Expr, cx: Cx, feature: string): ExprFn {
  const file = cx.m.fileName;
  return () => raise("PW3060", e.span, file, { feature });
}

function compileThrow(valueExpr: Expr, e: Expr, cx: Cx): ExprFn {
  const v = compileExpr(valueExpr, cx);
  const file = cx.m.fileName;
  return (f) => {
    const value = v(f);
    const msg = value instanceof Map && value.has("message") ? toText(value.get("message")!) : toText(value);
    throw new RuntimeError("PW3001", `uncaught exception: ${msg}`, e.span, file, value);
  };
}

// ───────────────────────────── literals and names ─────────────────────────────

/** A string with interpolation; a result past the engine's string limit is PW3073 here. */
function compileString(e: StringLit, cx: Cx): ExprFn {
  const parts = e.parts;
  if (parts.length === 0) return () => "";
  if (parts.length === 1 && parts[0]!.kind === "Text") {
    const s = parts[0]!.value;
    return () => s;
  }
  const fns: ExprFn[] = parts.map((p) => {
    if (p.kind === "Text") {
      const s = p.value;
      return () => s;
    }
    const v = compileExpr(p.expr, cx);
    return (f) => toText(v(f));
  });
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    let s = "";
    for (let i = 0; i < fns.length; i++) {
      let part: string;
      try {
        part = fns[i]!(f) as string;
      } catch (err) {
        throw err instanceof RangeError ? rt.fromRangeError(err, e.span, file) : err;
      }
      rt.checkStringLength(s.length + part.length, "the string", e.span, file);
      s += part;
    }
    return s;
  };
}

function compileArray(e: ArrayLit, cx: Cx): ExprFn {
  const els = e.elements.map((x) => compileExpr(x, cx));
  return (f) => {
    const out: Value[] = new Array(els.length);
    for (let i = 0; i < els.length; i++) out[i] = els[i]!(f);
    return out;
  };
}

function compileObject(e: ObjectLit, cx: Cx): ExprFn {
  const keys = e.properties.map((p) => p.key);
  const vals = e.properties.map((p) => compileExpr(p.value, cx));
  return (f) => {
    const m: PwObject = new Map();
    for (let i = 0; i < keys.length; i++) m.set(keys[i]!, vals[i]!(f));
    return m;
  };
}

/** The frame slot of a name bound in the current function's frame, else -1. */
export function localSlot(e: Expr, cx: Cx): number {
  if (e.kind !== "Ident") return -1;
  const b = cx.scope.lookup(e.name);
  return b && b.fn === cx.scope.fn ? b.slot : -1;
}

export function compileIdent(e: Ident, cx: Cx): ExprFn {
  const b = cx.scope.lookup(e.name);
  const file = cx.m.fileName;
  if (b) {
    const slot = b.slot;
    if (b.fn === cx.scope.fn) return (f) => f[slot] as Value;
    const G = cx.m.G;
    const rt = cx.m.rt;
    return () => {
      const v = G[slot];
      if (v === undefined) return raise("PW3002", e.span, file, { name: e.name, detail: rt.statementsSkipped ? WORKER_SCOPE : "" });
      return v;
    };
  }
  if (isBuiltinName(e.name)) {
    const v = builtinValue(e.name);
    return () => v;
  }
  if (e.name === PROGRAM_ARGS) {
    const rt = cx.m.rt;
    return () => rt.programArgs;
  }
  if (ACTOR_NAMES.has(e.name)) return () => raise("PW3060", e.span, file, { feature: `'${e.name}' (actor features)` });
  return () => raise("PW3002", e.span, file, { name: e.name });
}

/** The program's command-line words (`Runtime.programArgs`), unless a declaration hides the name. */
export const PROGRAM_ARGS = "args";

/** Names of the reference examples' actor features, reported as unsupported when unbound. */
const ACTOR_NAMES: ReadonlySet<string> = new Set(["delegate", "mailbox", "spawn"]);

/** `await e` / `e.await`: joins a delegation (or runs a task); other values are themselves. */
function compileAwait(e: AwaitExpr, cx: Cx): ExprFn {
  const v = compileExpr(e.operand, cx);
  const rt = cx.m.rt;
  const site = new CallSite(rt, cx.m.fileName, e.span, "await", e);
  return (f) => awaitValue(rt, v(f), site);
}

/** Compiles a store into a name: returns a closure storing a value (type-checked). */
export function compileStore(target: Ident, cx: Cx): (f: Value[], v: Value) => void {
  const b = cx.scope.lookup(target.name);
  const file = cx.m.fileName;
  if (!b) return () => raise("PW3002", target.span, file, { name: target.name });
  const slot = b.slot;
  const frame = b.fn === cx.scope.fn ? null : cx.m.G;
  const check = b.type ? checkAssignable(b.type, b.typeScope!, `'${target.name}'`, target.span, file) : null;
  if (frame) {
    return (_f, v) => {
      if (frame[slot] === undefined) raise("PW3002", target.span, file, { name: target.name });
      if (check) check(v);
      frame[slot] = v;
    };
  }
  if (check) {
    return (f, v) => {
      check(v);
      f[slot] = v;
    };
  }
  return (f, v) => {
    f[slot] = v;
  };
}

function compileAssign(e: AssignExpr, cx: Cx): ExprFn {
  const t = e.target;
  const typed = t.kind === "Ident" ? cx.scope.lookup(t.name) : undefined;
  if (typed?.type && e.value.kind === "Think") {
    // `x = think {…}` for an annotated `x`: the think is typed by the declaration.
    const think = compileThink(e.value, cx, { type: typed.type, scope: typed.typeScope! });
    const slot = typed.slot;
    const frame = typed.fn === cx.scope.fn ? null : cx.m.G;
    return (f) => ((frame ?? f)[slot] = think(f));
  }
  const value = compileExpr(e.value, cx);
  if (t.kind === "Ident") {
    const b = cx.scope.lookup(t.name);
    if (b && !b.type && b.fn === cx.scope.fn) {
      const slot = b.slot;
      return (f) => (f[slot] = value(f));
    }
    const store = compileStore(t, cx);
    return (f) => {
      const v = value(f);
      store(f, v);
      return v;
    };
  }
  const obj = compileExpr(t.object, cx);
  const file = cx.m.fileName;
  const max = cx.m.rt.maxArrayLength;
  if (t.kind === "Member") {
    const key = t.property;
    return (f) => {
      const o = obj(f);
      const v = value(f);
      setMember(o, key, v, t, file, max);
      return v;
    };
  }
  const idx = compileExpr(t.index, cx);
  return (f) => {
    const o = obj(f);
    const i = idx(f);
    const v = value(f);
    setIndex(o, i, v, t, file, max);
    return v;
  };
}

function compileUpdate(e: UpdateExpr, cx: Cx): ExprFn {
  const delta = e.op === "++" ? 1 : -1;
  const t = e.target;
  const file = cx.m.fileName;
  const bad = (v: Value) => raise("PW3005", e.span, file, { op: e.op, left: describe(v) });
  if (t.kind === "Ident") {
    const read = compileIdent(t, cx);
    const b = cx.scope.lookup(t.name);
    if (b && !b.type && b.fn === cx.scope.fn) {
      const slot = b.slot;
      return (f) => {
        const old = f[slot];
        if (typeof old !== "number") return bad(old as Value);
        f[slot] = old + delta;
        return old;
      };
    }
    const store = compileStore(t, cx);
    return (f) => {
      const old = read(f);
      if (typeof old !== "number") return bad(old);
      store(f, old + delta);
      return old;
    };
  }
  const obj = compileExpr(t.object, cx);
  const idx = t.kind === "Index" ? compileExpr(t.index, cx) : null;
  const key = t.kind === "Member" ? t.property : "";
  const max = cx.m.rt.maxArrayLength;
  return (f) => {
    const o = obj(f);
    const i = idx ? idx(f) : key;
    const old = idx ? getIndex(o, i, t, file) : getMember(o, key, t, file);
    if (typeof old !== "number") return bad(old);
    if (idx) setIndex(o, i, old + delta, t, file, max);
    else setMember(o, key, old + delta, t, file, max);
    return old;
  };
}

/** Short description of a value's type for messages. */
/** `describe(v)` for an operand: a think's prompt held by a variable is named (`'n', a think's prompt`). */
export function describeOperand(v: Value, operand: Expr): string {
  const what = describe(v);
  return what === THINK_PROMPT && operand.kind === "Ident" ? `'${operand.name}', ${what},` : what;
}

export function describe(v: Value): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (v instanceof Map) return isThinkPrompt(v) ? THINK_PROMPT : "an object";
  switch (typeof v) {
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "boolean":
      return "a boolean";
  }
  return "a function";
}
