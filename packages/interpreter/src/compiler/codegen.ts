/**
 * The fast tier: function bodies and module top levels are compiled to JavaScript source
 * (one `new Function` per body), so V8 optimises a whole Patchwork function as one JS function.
 * Only a core subset is generated inline (numbers, locals, module-level names, operators,
 * local assignment and `++`/`--`, calls of module-level functions, `var`, `if`, `while`,
 * `for` over ranges, `return`, `break`, `continue`, blocks). Every other node is compiled by
 * the closure compiler and called from the generated code (`K[i](f)`), so each node has exactly
 * one meaning and slow paths and errors go through the same helpers and wordings.
 * Names are resolved exactly as the closure compiler does (same scopes, same order).
 */
import type { BinaryExpr, Block, Expr, ForStmt, Ident, Stmt, WhileStmt } from "@patchwork/parser";
import { BREAK, CONTINUE, NORMAL, RETURN } from "../runtime.js";
import { PwFunction, type Value } from "../values.js";
import { makeHelpers } from "./codegen-helpers.js";
import { compileCond, compileExpr, compileOperand } from "./expr.js";
import { compileRangeBounds, plusSite } from "./ops.js";
import { childCx, type Cx } from "./scope.js";
import { compileStmt, taskRunner } from "./stmt.js";
import { compileShownThink, isShownThink } from "./think.js";
import { PwTask } from "../workers/objects.js";
import type { StmtFn } from "./types.js";

class Gen {
  /** Constants referenced by the generated code: nodes (for errors) and fallback closures. */
  readonly K: unknown[] = [];
  /**
   * Temporaries in use. A temporary lives within the statement that takes it (a loop's counters
   * within the loop), so each statement gives back what it took (`stmts`): a body of 160,000
   * statements declares a handful of `t` variables, not one per statement, whose frame would
   * overflow the stack before its first statement ran.
   */
  temps = 0;
  /** The most temporaries in use at once: how many the body declares. */
  private maxTemps = 0;
  /** Depth of generated loops around the code being generated. */
  loops = 0;
  /** Per generated loop (innermost last): the variable a `break` of it sets, if it has one (a `while` told to the host). */
  readonly breakFlags: (string | null)[] = [];

  /** A `break` of the innermost generated loop. */
  brk(): string {
    const flag = this.breakFlags[this.breakFlags.length - 1];
    return flag ? `{ ${flag} = true; break; }` : "break;";
  }

  k(v: unknown): string {
    this.K.push(v);
    return `K[${this.K.length - 1}]`;
  }

  temp(): string {
    const t = `t${this.temps++}`;
    if (this.temps > this.maxTemps) this.maxTemps = this.temps;
    return t;
  }

  tempDecl(): string {
    if (this.maxTemps === 0) return "";
    return `let ${Array.from({ length: this.maxTemps }, (_, i) => `t${i}`).join(", ")};`;
  }
}

// ─────────────────────────────────── expressions ───────────────────────────────────

function expr(e: Expr, cx: Cx, g: Gen): string {
  switch (e.kind) {
    case "Number":
      return Object.is(e.value, -0) ? "-0" : String(e.value);
    case "Bool":
      return e.value ? "true" : "false";
    case "Null":
      return "null";
    case "String":
      if (e.parts.length === 0) return '""';
      if (e.parts.length === 1 && e.parts[0]!.kind === "Text") return JSON.stringify(e.parts[0]!.value);
      break;
    case "Ident":
      return ident(e, cx, g) ?? `${g.k(compileExpr(e, cx))}(f)`;
    case "Binary":
      return binary(e, cx, g);
    case "Assign":
      if (e.target.kind === "Ident") {
        const slot = localUntyped(e.target, cx);
        if (slot >= 0) return `(f[${slot}] = ${expr(e.value, cx, g)})`;
      }
      break;
    case "Update":
      if (e.target.kind === "Ident") {
        const slot = localUntyped(e.target, cx);
        if (slot >= 0) {
          const t = g.temp();
          const d = e.op === "++" ? "+ 1" : "- 1";
          return `(${t} = f[${slot}], typeof ${t} === "number" ? (f[${slot}] = ${t} ${d}, ${t}) : H.badUpdate(${t}, ${g.k(e)}))`;
        }
      }
      break;
    case "Unary": {
      if (e.op === "!") return `!(${cond(e.operand, cx, g)})`;
      const t = g.temp();
      return `(${t} = ${expr(e.operand, cx, g)}, typeof ${t} === "number" ? -${t} : H.neg(${t}, ${g.k(e)}))`;
    }
    case "Logical": {
      const t = g.temp();
      const l = operand(e.left, cx, g);
      const r = operand(e.right, cx, g);
      return e.op === "&&" ? `(H.truthy(${t} = ${l}) ? ${r} : ${t})` : `(H.truthy(${t} = ${l}) ? ${t} : ${r})`;
    }
    case "Call":
      if (e.callee.kind === "Ident") {
        const b = cx.scope.lookup(e.callee.name);
        if (b && b.fn.isModule && b.fn !== cx.scope.fn) {
          // The call protocol of `enter` (call.ts), inlined: depth, steps, body, signal.
          const [t, c, fr, sg, rv] = [g.temp(), g.temp(), g.temp(), g.temp(), g.temp()];
          const args = `[${e.args.map((a) => expr(a, cx, g)).join(", ")}]`;
          const n = e.args.length;
          const node = g.k(e);
          const enter =
            `(${fr} = ${args}, ++rt.depth > rt.maxDepth && H.tooDeep(${node}), ` +
            `++rt.steps >= rt.nextCheck && H.check(${node}), rt.callSite = ${node}, ` +
            `${sg} = ${c}.body(${fr}), rt.depth--, ${sg} === ${RETURN} ? (${rv} = rt.ret, rt.ret = null, ${rv}) : null)`;
          // The callee first (an undefined one fails before the arguments run), as call.ts does.
          return (
            `(${t} = G[${b.slot}], ${t} === undefined && H.undef(${g.k(e.callee)}), ` +
            `${t} instanceof PF && (${c} = ${t}.compiled) !== null && ${c}.paramCount === ${n}` +
            ` ? ${enter} : H.call(${t}, ${args}, ${node}, ${g.k(e.callee)}))`
          );
        }
      }
      break;
  }
  return `${g.k(compileExpr(e, cx))}(f)`;
}

/** `&&` / `||` operands: a shell expression there is a condition. */
function operand(e: Expr, cx: Cx, g: Gen): string {
  return e.kind === "Shell" ? `${g.k(compileOperand(e, cx))}(f)` : expr(e, cx, g);
}

function localUntyped(e: Ident, cx: Cx): number {
  const b = cx.scope.lookup(e.name);
  return b && !b.type && b.fn === cx.scope.fn ? b.slot : -1;
}

function ident(e: Ident, cx: Cx, g: Gen): string | null {
  const b = cx.scope.lookup(e.name);
  if (!b) return null;
  if (b.fn === cx.scope.fn) return `f[${b.slot}]`;
  const t = g.temp();
  return `((${t} = G[${b.slot}]) === undefined ? H.undef(${g.k(e)}) : ${t})`;
}

function binary(e: BinaryExpr, cx: Cx, g: Gen): string {
  const a = g.temp();
  // A number literal on the right needs no temporary and no type test.
  const lit = e.right.kind === "Number" ? expr(e.right, cx, g) : null;
  const b = lit === null ? g.temp() : `(${lit})`;
  const pre = lit === null ? `${a} = ${expr(e.left, cx, g)}, ${b} = ${expr(e.right, cx, g)}, ` : `${a} = ${expr(e.left, cx, g)}, `;
  const node = g.k(e);
  const nums = lit === null ? `typeof ${a} === "number" && typeof ${b} === "number"` : `typeof ${a} === "number"`;
  switch (e.op) {
    case "+":
      return `(${pre}${nums} ? ${a} + ${b} : H.add(${a}, ${b}, ${node}, ${g.k(plusSite(e, cx))}))`;
    case "-":
    case "*":
      return `(${pre}${nums} ? ${a} ${e.op} ${b} : H.bad(${a}, ${b}, ${node}))`;
    case "/":
    case "%":
      return `(${pre}H.div(${a}, ${b}, ${node}))`;
    case "==":
      return `(${pre}H.eq(${a}, ${b}, ${node}))`;
    case "!=":
      return `(${pre}!H.eq(${a}, ${b}, ${node}))`;
    default:
      return `(${pre}${nums} ? ${a} ${e.op} ${b} : H.cmp(${a}, ${b}, ${node}))`;
  }
}

function cond(e: Expr, cx: Cx, g: Gen): string {
  switch (e.kind) {
    case "Binary":
      if (["<", ">", "<=", ">=", "==", "!="].includes(e.op)) return binary(e, cx, g);
      break;
    case "Bool":
      return e.value ? "true" : "false";
    case "Unary":
      if (e.op === "!") return `!(${cond(e.operand, cx, g)})`;
      break;
    case "Logical":
      return `(${cond(e.left, cx, g)} ${e.op} ${cond(e.right, cx, g)})`;
    case "Shell":
    case "Assign":
      return `${g.k(compileCond(e, cx))}(f)`;
  }
  return `H.truthy(${expr(e, cx, g)})`;
}

// ─────────────────────────────────── statements ───────────────────────────────────

/** A statement compiled by the closure compiler, its signal propagated. */
function fallback(s: Stmt, cx: Cx, g: Gen): string {
  const fn = g.k(compileStmt(s, cx));
  const propagate = g.loops > 0 ? `{ if (s === ${BREAK}) ${g.brk()} if (s === ${CONTINUE}) continue; return s; }` : "return s;";
  return `if ((s = ${fn}(f)) !== ${NORMAL}) ${propagate}\n`;
}

function stmts(list: Stmt[], cx: Cx, g: Gen, top = false): string {
  let out = "";
  const mark = g.temps;
  for (const s of list) {
    out += stmt(s, cx, g, top);
    g.temps = mark; // the statement's temporaries are free again (see Gen.temps)
  }
  return out;
}

function block(b: Block, cx: Cx, g: Gen): string {
  return `{\n${stmts(b.statements, childCx(cx), g)}}\n`;
}

function stmt(s: Stmt, cx: Cx, g: Gen, top: boolean): string {
  switch (s.kind) {
    case "ExprStmt": {
      // A think as a statement shows its answer (think.ts, compileShownThink).
      if (isShownThink(s.expr)) {
        const v = `${g.k(compileShownThink(s.expr, cx))}(f)`;
        return top ? `rt.lastValue = ${v};\n` : `${v};\n`;
      }
      let v = expr(s.expr, cx, g);
      if (s.expr.kind === "Call") {
        // A worker called as a statement runs (stmt.ts compileCallStatement).
        const t = g.temp();
        v = `((${t} = ${v}) instanceof ${g.k(PwTask)} ? ${g.k(taskRunner(s.expr, cx))}(${t}) : ${t})`;
      }
      return top ? `rt.lastValue = ${v};\n` : `${v};\n`;
    }
    case "VarDecl": {
      const p = s.pattern;
      if (p.kind !== "IdentPattern" || s.type || s.init?.kind === "Think" || cx.scope.hasOwn(p.name)) break;
      const init = s.init ? expr(s.init, cx, g) : "null";
      const slot = cx.scope.declare(p.name).slot;
      return `f[${slot}] = ${init};\n`;
    }
    case "If": {
      let out = `if (${cond(s.test, cx, g)}) ${block(s.then, cx, g)}`;
      if (s.else) out += `else ${s.else.kind === "If" ? stmt(s.else, cx, g, false) : block(s.else, cx, g)}`;
      return out;
    }
    case "While":
      return loop(s, cx, g);
    case "For":
      if (s.iterable.kind === "Range") return forRange(s, cx, g);
      break;
    case "Return":
      if (s.value?.kind === "Think" && cx.scope.fn.returnType) break;
      return `rt.ret = ${s.value ? expr(s.value, cx, g) : "null"}; return ${RETURN};\n`;
    case "Succeed":
      return `rt.ret = null; return ${RETURN};\n`;
    case "Break":
    case "Continue":
      if (g.loops > 0) return s.kind === "Break" ? `${g.brk()}\n` : "continue;\n";
      break;
    case "Block":
      return block(s, cx, g);
    case "TypeDecl":
      compileStmt(s, cx);
      return "";
  }
  return fallback(s, cx, g);
}

function tick(s: Stmt, g: Gen): string {
  return `if (++rt.steps >= rt.nextCheck) H.check(${g.k(s)});\n`;
}

function loop(s: WhileStmt, cx: Cx, g: Gen): string {
  const test = cond(s.test, cx, g);
  const inner: Cx = { ...childCx(cx), loops: cx.loops + 1 };
  const events = cx.m.rt.events;
  // A host listens: as forRange below. `left` stays true when the body returns; `broke` is set by its `break`.
  const [loop, done, ok, left, broke] = events ? [g.temp(), g.temp(), g.temp(), g.temp(), g.temp()] : [];
  g.loops++;
  g.breakFlags.push(broke ?? null);
  const body = stmts(s.body.statements, inner, g);
  g.breakFlags.pop();
  g.loops--;
  if (!events) return `while (${test}) {\n${tick(s, g)}${body}}\n`;
  return (
    `${loop} = H.loopStart(${g.k(s)}, 0, -1);\n${done} = 0;\n${ok} = true;\n${left} = true;\n${broke} = false;\ntry {\n` +
    `for (; ${test}; ${done}++) {\n${tick(s, g)}H.loopItem(${loop}, ${done});\n${body}}\n${left} = false;\n` +
    `} catch (e) {\n${ok} = false;\nthrow e;\n} finally {\nH.loopEnd(${loop}, ${ok}, ${done} + (${ok} && (${left} || ${broke}) ? 1 : 0));\n}\n`
  );
}

function forRange(s: ForStmt, cx: Cx, g: Gen): string {
  const i = g.temp();
  const end = g.temp();
  const range = s.iterable as Expr & { kind: "Range" };
  const bounds = g.k(compileRangeBounds(range, cx));
  const varCx = childCx(cx);
  const slot = varCx.scope.declare(s.name).slot;
  const inner: Cx = { ...childCx(varCx), loops: cx.loops + 1 };
  g.loops++;
  g.breakFlags.push(null);
  const body = stmts(s.body.statements, inner, g);
  g.breakFlags.pop();
  g.loops--;
  const head = `[${i}, ${end}] = ${bounds}(f);\n`;
  if (!cx.m.rt.events) return head + `for (; ${i} <= ${end}; ${i}++) {\n${tick(s, g)}f[${slot}] = ${i};\n${body}}\n`;
  // A host listens: the loop's progress events (loop-progress.ts). `finally` ends it however it
  // is left; a `break` or `return` counts the item it leaves from as done, an error does not.
  const [loop, done, ok] = [g.temp(), g.temp(), g.temp()];
  return (
    head +
    `${loop} = H.loopStart(${g.k(s)}, ${i}, ${end});\n${done} = 0;\n${ok} = true;\ntry {\n` +
    `for (; ${i} <= ${end}; ${i}++, ${done}++) {\n${tick(s, g)}H.loopItem(${loop}, ${done});\nf[${slot}] = ${i};\n${body}}\n` +
    `} catch (e) {\n${ok} = false;\nthrow e;\n} finally {\nH.loopEnd(${loop}, ${ok}, ${done} + (${ok} && ${i} <= ${end} ? 1 : 0));\n}\n`
  );
}

/**
 * Statements per generated JS function. V8 compiles a function whole, in time that grows faster
 * than its length: a generated program of 160,000 statements as one function took seconds to
 * compile before its first statement ran. A longer list is compiled in chunks, each a function
 * of its own run in order (a signal other than NORMAL, a `return`, ends the list as before), and
 * each compiled by V8 only when it is reached.
 */
const CHUNK_STATEMENTS = 2000;

/** Compiles statements of a function body (or a module's top level) to JS: one function, or chunks of them in order. */
export function generateBody(list: Stmt[], cx: Cx, topLevel = false): StmtFn {
  if (list.length <= CHUNK_STATEMENTS) return generateChunk(list, cx, topLevel);
  const chunks: StmtFn[] = [];
  for (let i = 0; i < list.length; i += CHUNK_STATEMENTS) chunks.push(generateChunk(list.slice(i, i + CHUNK_STATEMENTS), cx, topLevel));
  return (f) => {
    for (const chunk of chunks) {
      const s = chunk(f);
      if (s !== NORMAL) return s;
    }
    return NORMAL;
  };
}

function generateChunk(list: Stmt[], cx: Cx, topLevel: boolean): StmtFn {
  const g = new Gen();
  const code = stmts(list, cx, g, topLevel);
  const src = `"use strict";\nreturn function body(f) {\nlet s;\n${g.tempDecl()}\n${code}return ${NORMAL};\n};`;
  const rt = cx.m.rt;
  const make = new Function("K", "H", "G", "rt", "PF", src) as (...a: unknown[]) => StmtFn;
  return make(g.K, makeHelpers(rt, cx.m.fileName), cx.m.G, rt, PwFunction);
}

export type { Value };
