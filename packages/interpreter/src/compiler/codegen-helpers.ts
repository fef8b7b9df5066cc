/**
 * Run-time helpers of generated code (codegen.ts): the slow paths and error exits. Each
 * mirrors what the closure compiler does for the same node, so both tiers behave alike.
 */
import type { BinaryExpr, CallExpr, ForStmt, Ident, Node, UnaryExpr, UpdateExpr, WhileStmt } from "@patchwork/parser";
import type { CallSite } from "../builtins/types.js";
import { raise, WORKER_SCOPE } from "../errors.js";
import type { Runtime } from "../runtime.js";
import { truthy, type CompiledFunction, type Value } from "../values.js";
import { callValue, enter } from "./call.js";
import { describe, describeOperand } from "./expr.js";
import { loopEnd, loopItem, loopStart, rangeItems } from "./loop-progress.js";
import { add, equal } from "./ops.js";

export interface Helpers {
  undef(node: Ident): never;
  add(a: Value, b: Value, node: BinaryExpr, site: CallSite): Value;
  bad(a: Value, b: Value, node: BinaryExpr): never;
  cmp(a: Value, b: Value, node: BinaryExpr): boolean;
  div(a: Value, b: Value, node: BinaryExpr): Value;
  eq(a: Value, b: Value, node: BinaryExpr): boolean;
  truthy(v: Value): boolean;
  neg(v: Value, node: UnaryExpr): number;
  badUpdate(v: Value, node: UpdateExpr): never;
  enter(c: CompiledFunction, frame: Value[], node: CallExpr): Value;
  tooDeep(node: Node): never;
  call(fv: Value | undefined, args: Value[], node: CallExpr, callee: Ident): Value;
  check(node: Node): void;
  bounds(a: Value, b: Value, node: Node): void;
  loopStart(node: ForStmt | WhileStmt, a: number, b: number): number;
  loopItem(loop: number, index: number): void;
  loopEnd(loop: number, ok: boolean, done: number): void;
}

export function makeHelpers(rt: Runtime, file: string): Helpers {
  const bad = (a: Value, b: Value, node: BinaryExpr): never =>
    raise("PW3005", node.span, file, { op: node.op, left: describeOperand(a, node.left), right: describeOperand(b, node.right) });
  return {
    undef: (node) => raise("PW3002", node.span, file, { name: node.name, detail: rt.statementsSkipped ? WORKER_SCOPE : "" }),
    add: (a, b, node, site) => add(a, b, (x, y) => bad(x, y, node), site),
    bad,
    cmp: (a, b, node) => {
      if (typeof a !== "string" || typeof b !== "string") return bad(a, b, node);
      switch (node.op) {
        case "<":
          return a < b;
        case ">":
          return a > b;
        case "<=":
          return a <= b;
        default:
          return a >= b;
      }
    },
    div: (a, b, node) => {
      if (typeof a !== "number" || typeof b !== "number") return bad(a, b, node);
      if (b === 0) return raise("PW3012", node.span, file);
      return node.op === "/" ? a / b : a % b;
    },
    eq: (a, b, node) => a === b || equal(a, b, rt, node.span, file),
    truthy,
    neg: (v, node) => raise("PW3005", node.span, file, { op: "-", left: describe(v) }),
    badUpdate: (v, node) => raise("PW3005", node.span, file, { op: node.op, left: describe(v) }),
    enter: (c, frame, node) => enter(rt, c, frame, node, file),
    tooDeep: (node) => rt.tooDeep(node, file),
    call: (fv, args, node, callee) => {
      if (fv === undefined) return raise("PW3002", callee.span, file, { name: callee.name });
      return callValue(rt, fv, args, node, file, `'${callee.name}'`);
    },
    check: (node) => rt.check(node, file),
    loopStart: (node, a, b) => (node.kind === "While" ? loopStart(rt, node, file, null, null) : loopStart(rt, node, file, rangeItems(a, b), Math.max(0, b - a + 1))),
    loopItem: (loop, index) => loopItem(rt, loop, index),
    loopEnd: (loop, ok, done) => loopEnd(rt, loop, ok, done),
    bounds: (a, b, node) => {
      if (typeof a !== "number" || typeof b !== "number")
        raise("PW3005", node.span, file, { op: "...", left: describe(a), right: describe(b) });
    },
  };
}
