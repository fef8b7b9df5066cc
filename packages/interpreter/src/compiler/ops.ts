/** Operators: unary, binary, logical and ranges, with fast paths for numbers. */
import type { BinaryExpr, Expr, LogicalExpr, RangeExpr, UnaryExpr } from "@patchwork/parser";
import { raise } from "../errors.js";
import { deepEqual, toText, type Value } from "../values.js";
import { compileCond, compileExpr, compileOperand, describe, localSlot } from "./expr.js";
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

export function add(a: Value, b: Value, bad: Bad): Value {
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (typeof a === "string" || typeof b === "string") return toText(a) + toText(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.concat(b);
  return bad(a, b);
}

function badOp(e: BinaryExpr, file: string): Bad {
  return (a, b) => raise("PW3005", e.span, file, { op: e.op, left: describe(a), right: describe(b) });
}

function isNumberLit(e: Expr): e is Expr & { kind: "Number"; value: number } {
  return e.kind === "Number";
}

export function compileBinary(e: BinaryExpr, cx: Cx): ExprFn {
  const file = cx.m.fileName;
  const bad = badOp(e, file);
  const l = compileExpr(e.left, cx);
  if (isNumberLit(e.right) && e.op !== "/" && e.op !== "%") {
    const slot = localSlot(e.left, cx);
    return slot >= 0 ? compileSlotConst(e, slot, e.right.value, bad) : compileWithConst(e, l, e.right.value, bad);
  }
  const r = compileExpr(e.right, cx);
  switch (e.op) {
    case "+":
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === "number" && typeof b === "number" ? a + b : add(a, b, bad);
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
        return a === b || deepEqual(a, b);
      };
    case "!=":
      return (f) => {
        const a = l(f);
        const b = r(f);
        return !(a === b || deepEqual(a, b));
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
function compileWithConst(e: BinaryExpr, l: ExprFn, k: number, bad: Bad): ExprFn {
  switch (e.op) {
    case "+":
      return (f) => {
        const a = l(f);
        return typeof a === "number" ? a + k : add(a, k, bad);
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
function compileSlotConst(e: BinaryExpr, slot: number, k: number, bad: Bad): ExprFn {
  switch (e.op) {
    case "+":
      return (f) => {
        const a = f[slot] as Value;
        return typeof a === "number" ? a + k : add(a, k, bad);
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

/** A range used as a value is an array of its numbers. */
export function compileRangeValue(e: RangeExpr, cx: Cx): ExprFn {
  const bounds = compileRangeBounds(e, cx);
  return (f) => {
    const [a, b] = bounds(f);
    const out: Value[] = [];
    for (let i = a; i <= b; i++) out.push(i);
    return out;
  };
}
