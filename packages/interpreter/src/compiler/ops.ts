/** Operators: unary, binary, logical and ranges, with fast paths for numbers. */
import type { BinaryExpr, Expr, LogicalExpr, RangeExpr, UnaryExpr } from "@patchwork/parser";
import { raise } from "../errors.js";
import { CallSite } from "../builtins/types.js";
import type { Span } from "@patchwork/parser";
import type { Runtime } from "../runtime.js";
import { deepEqual, numberToText, toText, type Value } from "../values.js";
import { compileCond, compileExpr, compileOperand, describe, describeOperand, localSlot } from "./expr.js";
import type { Cx } from "./scope.js";
import type { ExprFn } from "./types.js";

type Bad = (a: Value, b: Value) => never;

export function compileUnary(e: UnaryExpr, cx: Cx): ExprFn {
  if (e.op === "!") {
    const c = compileCond(e.operand, cx);
    return (f) => !c(f);
  }
  const v = compileExpr(e.operand, cx);
  const file = cx.m.fileName;
  return (f) => {
    const x = v(f);
    if (typeof x !== "number") return raise("PW3005", e.span, file, { op: "-", left: describe(x) });
    return -x;
  };
}

export function compileLogical(e: LogicalExpr, cx: Cx): ExprFn {
  const l = compileOperand(e.left, cx);
  const r = compileOperand(e.right, cx);
  const truthy = (x: Value) =>
    x !== null && x !== false && x !== 0 && x !== "" && !(Array.isArray(x) && x.length === 0) && x === x;
  return e.op === "&&"
    ? (f) => {
        const a = l(f);
        return truthy(a) ? r(f) : a;
      }
    : (f) => {
        const a = l(f);
        return truthy(a) ? a : r(f);
      };
}

/** `+` beyond numbers: text concatenation or array concatenation, within the size limits. */
export function add(a: Value, b: Value, bad: Bad, site: CallSite): Value {
  if (typeof a === "number" && typeof b === "number") return a + b;
  const { rt, span, file } = site;
  if (typeof a === "string" || typeof b === "string") {
    const x = site.guard(toText, a);
    const y = site.guard(toText, b);
    rt.checkStringLength(x.length + y.length, "the result of '+'", span, file);
    return x + y;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    rt.checkArrayLength(a.length + b.length, "the result of '+'", span, file);
    rt.charge(a.length + b.length, site.node, file);
    return a.concat(b);
  }
  return bad(a, b);
}

/** The site of a `+` (for its size checks). */
export function plusSite(e: BinaryExpr, cx: Cx): CallSite {
  return new CallSite(cx.m.rt, cx.m.fileName, e.span, "+", e);
}

/** `==`: deep structural equality; a value nested too deeply to compare is PW3073 at `span`. */
export function equal(a: Value, b: Value, rt: Runtime, span: Span, file: string): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  try {
    return deepEqual(a, b);
  } catch (e) {
    throw e instanceof RangeError ? rt.fromRangeError(e, span, file) : e;
  }
}

function badOp(e: BinaryExpr, file: string): Bad {
  return (a, b) => raise("PW3005", e.span, file, { op: e.op, left: describeOperand(a, e.left), right: describeOperand(b, e.right) });
}

function isNumberLit(e: Expr): e is Expr & { kind: "Number"; value: number } {
  return e.kind === "Number";
}

export function compileBinary(e: BinaryExpr, cx: Cx): ExprFn {
  const file = cx.m.fileName;
  const bad = badOp(e, file);
  const site = plusSite(e, cx);
  const rt = cx.m.rt;
  const l = compileExpr(e.left, cx);
  if (isNumberLit(e.right) && e.op !== "/" && e.op !== "%") {
    const slot = localSlot(e.left, cx);
    return slot >= 0 ? compileSlotConst(e, slot, e.right.value, bad, site) : compileWithConst(e, l, e.right.value, bad, site);
  }
  const r = compileExpr(e.right, cx);
  switch (e.op) {
    case "+":
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === "number" && typeof b === "number" ? a + b : add(a, b, bad, site);
      };
    case "-":
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === "number" && typeof b === "number" ? a - b : bad(a, b);
      };
    case "*":
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === "number" && typeof b === "number" ? a * b : bad(a, b);
      };
    case "/":
    case "%": {
      const div = e.op === "/";
      return (f) => {
        const a = l(f);
        const b = r(f);
        if (typeof a !== "number" || typeof b !== "number") return bad(a, b);
        if (b === 0) return raise("PW3012", e.span, file);
        return div ? a / b : a % b;
      };
    }
    case "==":
      return (f) => {
        const a = l(f);
        const b = r(f);
        return a === b || equal(a, b, rt, e.span, file);
      };
    case "!=":
      return (f) => {
        const a = l(f);
        const b = r(f);
        return !(a === b || equal(a, b, rt, e.span, file));
      };
    default:
      return compileCompare(e.op, l, r, bad);
  }
}

function compileCompare(op: "<" | ">" | "<=" | ">=", l: ExprFn, r: ExprFn, bad: Bad): ExprFn {
  const both = (a: Value, b: Value) =>
    (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
  switch (op) {
    case "<":
      return (f) => {
        const a = l(f);
        const b = r(f);
        if (typeof a === "number" && typeof b === "number") return a < b;
        return both(a, b) ? (a as string) < (b as string) : bad(a, b);
      };
    case ">":
      return (f) => {
        const a = l(f);
        const b = r(f);
        if (typeof a === "number" && typeof b === "number") return a > b;
        return both(a, b) ? (a as string) > (b as string) : bad(a, b);
      };
    case "<=":
      return (f) => {
        const a = l(f);
        const b = r(f);
        if (typeof a === "number" && typeof b === "number") return a <= b;
        return both(a, b) ? (a as string) <= (b as string) : bad(a, b);
      };
    case ">=":
      return (f) => {
        const a = l(f);
        const b = r(f);
        if (typeof a === "number" && typeof b === "number") return a >= b;
        return both(a, b) ? (a as string) >= (b as string) : bad(a, b);
      };
  }
}

/** `x op 2`: the right operand is a number literal (the common loop shape). */
function compileWithConst(e: BinaryExpr, l: ExprFn, k: number, bad: Bad, site: CallSite): ExprFn {
  switch (e.op) {
    case "+":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a + k : add(a, k, bad, site);
      };
    case "-":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a - k : bad(a, k);
      };
    case "*":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a * k : bad(a, k);
      };
    case "==":
      return (f) => l(f) === k;
    case "!=":
      return (f) => l(f) !== k;
    case "<":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a < k : bad(a, k);
      };
    case ">":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a > k : bad(a, k);
      };
    case "<=":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a <= k : bad(a, k);
      };
    case ">=":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a >= k : bad(a, k);
      };
    default:
      throw new Error(`unreachable: ${e.op}`);
  }
}

/** `x op 2` where `x` is a local: reads the slot directly (the hottest loop shape). */
function compileSlotConst(e: BinaryExpr, slot: number, k: number, bad: Bad, site: CallSite): ExprFn {
  switch (e.op) {
    case "+":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a + k : add(a, k, bad, site);
      };
    case "-":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a - k : bad(a, k);
      };
    case "*":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a * k : bad(a, k);
      };
    case "<":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a < k : bad(a, k);
      };
    case ">":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a > k : bad(a, k);
      };
    case "<=":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a <= k : bad(a, k);
      };
    case ">=":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a >= k : bad(a, k);
      };
    case "==":
      return (f) => f[slot] === k;
    case "!=":
      return (f) => f[slot] !== k;
    default:
      throw new Error(`unreachable: ${e.op}`);
  }
}

/** Bounds of a range, checked to be numbers. */
export function compileRangeBounds(e: RangeExpr, cx: Cx): (f: Value[]) => [number, number] {
  const s = compileExpr(e.start, cx);
  const t = compileExpr(e.end, cx);
  const file = cx.m.fileName;
  return (f) => {
    const a = s(f);
    const b = t(f);
    if (typeof a !== "number" || typeof b !== "number")
      return raise("PW3005", e.span, file, { op: "...", left: describe(a), right: describe(b) });
    return [a, b];
  };
}

/** Number of values of the inclusive range `a...b` (a `for` loop over it never builds them). */
export function rangeCount(a: number, b: number): number {
  if (!(b >= a)) return 0;
  // Infinity...Infinity: `b - a` is NaN, and the loop over it never ends.
  const n = Math.floor(b - a) + 1;
  return n === n ? n : Infinity;
}

/** A range used as a value is an array of its numbers, within the array length limit. */
export function compileRangeValue(e: RangeExpr, cx: Cx): ExprFn {
  const bounds = compileRangeBounds(e, cx);
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    const [a, b] = bounds(f);
    const n = rangeCount(a, b);
    rt.checkArrayLength(n, `the range ${numberToText(a)}...${numberToText(b)}`, e.span, file);
    rt.charge(n, e, file);
    // Counted like the `for` loop over a range: start, then `+ 1` each step.
    const out: Value[] = new Array(n);
    let x = a;
    for (let i = 0; i < n; i++, x++) out[i] = x;
    return out;
  };
}
