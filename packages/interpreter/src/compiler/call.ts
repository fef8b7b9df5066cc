/** Calls: user functions, builtins, methods of strings and arrays, members of objects. */
import type { CallExpr, MemberExpr, Node } from "@patchwork/parser";
import { BUILTINS, isBuiltinName } from "../builtins/index.js";
import { arityText, CallSite, type BuiltinDef, type MethodDef } from "../builtins/types.js";
import { raise } from "../errors.js";
import { unexportedHint } from "../module-objects.js";
import { arrayMethods } from "../methods/array.js";
import { stringMethods } from "../methods/string.js";
import { RETURN, type Runtime } from "../runtime.js";
import { PwBuiltin, PwFunction, PwOpaque, typeName, type CompiledFunction, type Value } from "../values.js";
import { opaqueCall, PwTask, PwWorkerFn, selfOf } from "../workers/objects.js";
import { compileExpr, describe } from "./expr.js";
import type { Cx } from "./scope.js";
import type { ExprFn } from "./types.js";

export function evalArgs(args: ExprFn[], f: Value[]): Value[] {
  const out: Value[] = new Array(args.length);
  for (let i = 0; i < args.length; i++) out[i] = args[i]!(f);
  return out;
}

export function compiledOf(fn: PwFunction): CompiledFunction {
  return fn.compiled ?? (fn.compiled = fn.compile(fn));
}

/** Runs a compiled function body in `frame` (parameters already in place). */
export function enter(rt: Runtime, c: CompiledFunction, frame: Value[], node: Node, file: string): Value {
  if (++rt.depth > rt.maxDepth) rt.tooDeep(node, file);
  if (++rt.steps >= rt.nextCheck) rt.check(node, file);
  rt.callSite = node;
  const s = c.body(frame);
  rt.depth--;
  if (s === RETURN) {
    const v = rt.ret;
    rt.ret = null;
    return v;
  }
  return null;
}

export function tooMany(fn: PwFunction, n: number, node: Node, file: string): never {
  return raise("PW3007", node.span, file, { name: fn.name, expected: `at most ${fn.decl.params.length}`, actual: n });
}

/** Calls any callable value with evaluated arguments. */
export function callValue(rt: Runtime, fv: Value, args: Value[], node: Node, file: string, what: string): Value {
  if (fv instanceof PwFunction) {
    const c = compiledOf(fv);
    if (args.length > c.paramCount) tooMany(fv, args.length, node, file);
    const frame: Value[] = new Array(c.size);
    for (let i = 0; i < c.paramCount; i++) frame[i] = i < args.length ? args[i]! : null;
    return enter(rt, c, frame, node, file);
  }
  if (fv instanceof PwBuiltin) {
    const def = BUILTINS[fv.name]!;
    checkArity(def, fv.name, args.length, node, file);
    return callBuiltin(def, args, new CallSite(rt, file, node.span, fv.name, node));
  }
  if (fv instanceof PwWorkerFn) return new PwTask(fv, args, node, file);
  if (fv instanceof Map) {
    const d = fv.get("default");
    if (d instanceof PwFunction || d instanceof PwBuiltin) return callValue(rt, d, args, node, file, what);
  }
  return raise("PW3006", node.span, file, { what, actual: describe(fv) });
}

/** Runs a builtin; an engine RangeError inside it (a value too large) is positioned at the call. */
function callBuiltin(def: BuiltinDef, args: Value[], site: CallSite): Value {
  try {
    return def.fn(args, site);
  } catch (e) {
    throw e instanceof RangeError ? site.rt.fromRangeError(e, site.span, site.file) : e;
  }
}

function checkArity(def: BuiltinDef | MethodDef, name: string, n: number, node: Node, file: string): void {
  if (n < def.min || n > def.max)
    raise("PW3007", node.span, file, { name, expected: arityText(def.min, def.max), actual: n });
}

export function compileCall(e: CallExpr, cx: Cx): ExprFn {
  const callee = e.callee;
  if (callee.kind === "Member") return compileMethodCall(e, callee, cx);
  const args = e.args.map((a) => compileExpr(a, cx));
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  if (callee.kind === "Ident" && !cx.scope.lookup(callee.name) && isBuiltinName(callee.name)) {
    return compileBuiltinCall(e, callee.name, args, cx);
  }
  const what = callee.kind === "Ident" ? `'${callee.name}'` : "the callee";
  const fnExpr = compileExpr(callee, cx);
  const n = args.length;
  const b = callee.kind === "Ident" ? cx.scope.lookup(callee.name) : undefined;
  if (n === 1 && b && b.fn.isModule && b.fn !== cx.scope.fn) return compileGlobalCall1(e, b.slot, args[0]!, fnExpr, cx, what);
  if (n === 1) {
    const a0 = args[0]!;
    return (f) => {
      const fv = fnExpr(f);
      if (fv instanceof PwFunction) {
        const c = fv.compiled ?? compiledOf(fv);
        const x = a0(f);
        if (c.paramCount === 0) tooMany(fv, 1, e, file);
        const frame: Value[] = new Array(c.size);
        frame[0] = x;
        for (let i = 1; i < c.paramCount; i++) frame[i] = null;
        return enter(rt, c, frame, e, file);
      }
      return callValue(rt, fv, [a0(f)], e, file, what);
    };
  }
  return (f) => {
    const fv = fnExpr(f);
    if (fv instanceof PwFunction) {
      const c = fv.compiled ?? compiledOf(fv);
      // Arguments are evaluated before the arity check, as a call through callValue does.
      if (n > c.paramCount) return callValue(rt, fv, evalArgs(args, f), e, file, what);
      const frame: Value[] = new Array(c.size);
      for (let i = 0; i < n; i++) frame[i] = args[i]!(f);
      for (let i = n; i < c.paramCount; i++) frame[i] = null;
      return enter(rt, c, frame, e, file);
    }
    return callValue(rt, fv, evalArgs(args, f), e, file, what);
  };
}

/**
 * Calls evaluate the callee, then the arguments left to right, then check the arity (as a
 * JavaScript or Python call does): an undefined callee fails before its arguments run, a call
 * with too many arguments after them. Both evaluation tiers follow this order.
 *
 * The hottest call shape: a one-argument call of a module-level name from inside a function
 * (recursion, helpers). Reads the module slot directly and enters the body inline.
 */
function compileGlobalCall1(e: CallExpr, slot: number, a0: ExprFn, fnExpr: ExprFn, cx: Cx, what: string): ExprFn {
  const G = cx.m.G;
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    const fv = G[slot];
    if (fv instanceof PwFunction) {
      const c = fv.compiled ?? compiledOf(fv);
      let frame: Value[];
      if (c.size === 1 && c.paramCount === 1) frame = [a0(f)];
      else {
        const x = a0(f);
        if (c.paramCount === 0) tooMany(fv, 1, e, file);
        frame = new Array(c.size);
        frame[0] = x;
        for (let i = 1; i < c.paramCount; i++) frame[i] = null;
      }
      return enter(rt, c, frame, e, file);
    }
    return callValue(rt, fnExpr(f), [a0(f)], e, file, what);
  };
}

function compileBuiltinCall(e: CallExpr, name: string, args: ExprFn[], cx: Cx): ExprFn {
  const def = BUILTINS[name]!;
  const file = cx.m.fileName;
  if (args.length < def.min || args.length > def.max) {
    // Arity is known statically: checked once here, raised if the call runs.
    return () => {
      checkArity(def, name, args.length, e, file);
      return null;
    };
  }
  const site = new CallSite(cx.m.rt, file, e.span, name, e);
  if (args.length === 1) {
    const a0 = args[0]!;
    return (f) => callBuiltin(def, [a0(f)], site);
  }
  return (f) => callBuiltin(def, evalArgs(args, f), site);
}

/** What to write instead of a JavaScript method strings and arrays lack here (`s.length()`), with the receiver's name (`what`) when it is a variable. */
function methodHint(o: unknown, name: string, receiver: string | undefined): string {
  const what = receiver ?? (typeof o === "string" ? "s" : "a");
  if (name === "length") return `length is a property: write \`${what}.length\` without parentheses (or \`len(${what})\`)`;
  if (name === "size") return `write \`${what}.length\` or \`len(${what})\``;
  if (name === "toString") return `write \`"\${${what}}"\` (text) or \`cat(${what})\` (JSON)`;
  if (Array.isArray(o) && ["map", "filter", "forEach", "reduce", "find", "some", "every"].includes(name)) {
    return "there are no callbacks: write a `for` loop (`for x in a { … }`)";
  }
  return "";
}

function compileMethodCall(e: CallExpr, callee: MemberExpr, cx: Cx): ExprFn {
  const settled = settledDelegation(e, callee, cx);
  if (settled) return settled;
  const obj = compileExpr(callee.object, cx);
  const invoke = methodInvoker(e, callee, e.args.map((a) => compileExpr(a, cx)), cx);
  return (f) => invoke(obj(f), f);
}

/**
 * `self.delegate(list).settle()`: the delegation starts in `settle` mode, so that no failure
 * cancels the other tasks before `.settle()` could say so (docs/decisions/0022-settle.md). The
 * same steps as the two method calls, with `settle()` checked by PwPending as any other.
 */
function settledDelegation(e: CallExpr, callee: MemberExpr, cx: Cx): ExprFn | null {
  const inner = callee.object;
  if (callee.property !== "settle" || inner.kind !== "Call" || inner.callee.kind !== "Member") return null;
  const delegateCallee = inner.callee;
  if (delegateCallee.property !== "delegate" || delegateCallee.object.kind !== "Self") return null;
  const rt = cx.m.rt;
  const args = inner.args.map((a) => compileExpr(a, cx));
  const settle = methodInvoker(e, callee, e.args.map((a) => compileExpr(a, cx)), cx);
  const site = new CallSite(rt, cx.m.fileName, inner.span, "delegate", inner);
  return (f) => settle(selfOf(rt).call("delegate", evalArgs(args, f), site, "settle"), f);
}

/**
 * A method call once its object `o` is evaluated (the arguments are evaluated here): the one
 * meaning of `o.name(args)`, shared by the closures and the resumable statements (resumable.ts).
 */
export function methodInvoker(e: CallExpr, callee: MemberExpr, args: ExprFn[], cx: Cx): (o: Value, f: Value[]) => Value {
  const name = callee.property;
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  const site = new CallSite(rt, file, e.span, name, e);
  return (o, f) => {
    if (o instanceof Map) {
      const fv = o.get(name);
      if (fv === undefined) return raise("PW3009", callee.span, file, { type: "this object", name, hint: unexportedHint(o, name) });
      return callValue(rt, fv, evalArgs(args, f), e, file, `'${name}'`);
    }
    if (o instanceof PwOpaque) {
      const r = opaqueCall(o, name, evalArgs(args, f), site);
      if (r !== undefined) return r;
    }
    const table = typeof o === "string" ? stringMethods : Array.isArray(o) ? arrayMethods : null;
    const def = table && Object.prototype.hasOwnProperty.call(table, name) ? table[name]! : null;
    if (!def) return raise("PW3009", callee.span, file, { type: typeName(o), name, hint: methodHint(o, name, callee.object.kind === "Ident" ? callee.object.name : undefined) });
    const vals = evalArgs(args, f);
    checkArity(def, name, vals.length, e, file);
    try {
      return def.fn(o as never, vals, site);
    } catch (err) {
      throw err instanceof RangeError ? rt.fromRangeError(err, e.span, file) : err;
    }
  };
}
