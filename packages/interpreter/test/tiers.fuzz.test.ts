// Differential test of the two evaluation tiers: random programs (arithmetic, strings and
// their methods, comparisons, loops with break/continue, recursion, try/catch, throw, runtime errors) run
// with codegen (function bodies and top levels compiled to JavaScript) and with the closure
// compiler only must print the same output and end with the same value, error code, message
// and position.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { run, type RunResult } from "../src/index.js";
import { createNodeHost } from "../src/index.js";
import { tempDir } from "./helpers.js";

// ─────────────────────────────── the program generator ───────────────────────────────

/**
 * Names. Every function declares its own `x1 x2` (numbers) and `x3` (a string) and has `p`,
 * so most names in a body are locals, which the fast tier generates inline; `a b` (numbers),
 * `s` (a string), `arr`, `o` are module variables (also inline in bodies); `nope` and `w` are
 * mostly undeclared. Expressions are mostly well typed, so that programs run far before an
 * error, with some ill-typed ones for the error paths.
 */
const NUM_VARS = ["x1", "x2", "p", "a", "b", "i"];
const STR_VARS = ["x3", "s"];
const NUM_LOCALS = ["x1", "x1", "x2", "p", "a"];

const numberLit = fc.constantFrom("0", "1", "2", "3", "7", "-1", "0.5", "10", "1e309", "100", "-0");
const stringLit = fc.constantFrom('""', '"a"', '"xy"', '"é😀"', '"10"', '"a,b"', '"B"');
const ARITH = ["+", "-", "*", "/", "%"];
const COMPARE = ["==", "!=", "<", ">", "<=", ">="];
const ALL = [...ARITH, ...COMPARE];

type Exprs = { num: string; str: string; bool: string; any: string };
const { num, str, bool, any: expr } = fc.letrec<Exprs>((tie) => ({
  num: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: numberLit },
    { weight: 5, arbitrary: fc.constantFrom(...NUM_VARS) },
    { weight: 5, arbitrary: fc.tuple(tie("num"), fc.constantFrom(...ARITH), tie("num")).map(([l, op, r]) => `(${l} ${op} ${r})`) },
    { weight: 1, arbitrary: tie("num").map((x) => `-(${x})`) },
    { weight: 1, arbitrary: tie("str").map((x) => `len(${x})`) },
    { weight: 1, arbitrary: fc.tuple(tie("str"), fc.constantFrom("", ".length")).map(([x, m]) => (m ? `${x}${m}` : `arr.length`)) },
    { weight: 1, arbitrary: tie("num").map((x) => `rec(${x})`) },
    { weight: 1, arbitrary: tie("num").map((x) => `f1(${x})`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NUM_LOCALS), fc.constantFrom("++", "--")).map(([v, op]) => `${v}${op}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NUM_LOCALS), tie("num")).map(([v, x]) => `(${v} = ${x})`) },
    { weight: 1, arbitrary: tie("num").map((x) => `arr[${x}]`) },
    { weight: 1, arbitrary: fc.tuple(tie("bool"), fc.constantFrom("&&", "||"), tie("num")).map(([l, op, r]) => `(${l} ${op} ${r})`) },
    { weight: 1, arbitrary: fc.tuple(tie("str"), fc.constantFrom("indexOf", "lastIndexOf"), tie("str")).map(([x, m, t]) => `${x}.${m}(${t})`) },
    { weight: 1, arbitrary: tie("any").map((x) => `arr.concat([${x}]).lastIndexOf(${x})`) },
  ),
  str: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: stringLit },
    { weight: 3, arbitrary: fc.constantFrom(...STR_VARS) },
    { weight: 3, arbitrary: fc.tuple(tie("str"), tie("any")).map(([l, r]) => `(${l} + ${r})`) },
    { weight: 1, arbitrary: fc.tuple(tie("any"), tie("num")).map(([x, y]) => `"<\${${x}}|\${${y}}>"`) },
    { weight: 1, arbitrary: fc.tuple(tie("str"), tie("num")).map(([x, i]) => `${x}[${i}]`) },
    { weight: 1, arbitrary: tie("str").map((x) => `(x3 = ${x})`) },
    { weight: 1, arbitrary: fc.tuple(tie("str"), fc.constantFrom("slice", "substring"), tie("num"), tie("num")).map(([x, m, a, b]) => `${x}.${m}(${a}, ${b})`) },
    { weight: 1, arbitrary: fc.tuple(tie("str"), fc.constantFrom("replace", "replaceAll"), tie("str"), tie("str")).map(([x, m, a, b]) => `${x}.${m}(${a}, ${b})`) },
    { weight: 1, arbitrary: fc.tuple(tie("str"), fc.constantFrom("trimStart", "trimEnd")).map(([x, m]) => `${x}.${m}()`) },
  ),
  bool: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 1, arbitrary: fc.constantFrom("true", "false") },
    { weight: 4, arbitrary: fc.tuple(tie("num"), fc.constantFrom(...COMPARE), tie("num")).map(([l, op, r]) => `(${l} ${op} ${r})`) },
    { weight: 2, arbitrary: fc.tuple(tie("str"), fc.constantFrom(...COMPARE), tie("str")).map(([l, op, r]) => `(${l} ${op} ${r})`) },
    { weight: 1, arbitrary: fc.tuple(tie("any"), fc.constantFrom("==", "!="), tie("any")).map(([l, op, r]) => `(${l} ${op} ${r})`) },
    { weight: 1, arbitrary: tie("bool").map((x) => `!(${x})`) },
    { weight: 2, arbitrary: fc.tuple(tie("bool"), fc.constantFrom("&&", "||"), tie("bool")).map(([l, op, r]) => `(${l} ${op} ${r})`) },
  ),
  any: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: tie("num") },
    { weight: 2, arbitrary: tie("str") },
    { weight: 1, arbitrary: tie("bool") },
    { weight: 1, arbitrary: fc.constantFrom("null", "[]", "{}", "arr", "o", "e", "nope", "w") },
    { weight: 1, arbitrary: fc.tuple(tie("any"), fc.constantFrom(...ALL), tie("any")).map(([l, op, r]) => `(${l} ${op} ${r})`) },
    { weight: 1, arbitrary: fc.tuple(tie("any"), tie("any")).map(([x, i]) => `${x}[${i}]`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("f1", "rec", "len", "nope", "g1", "f0", "late"), tie("any")).map(([f, x]) => `${f}(${x})`) },
    { weight: 1, arbitrary: fc.tuple(tie("any"), tie("any")).map(([x, y]) => `f2(${x}, ${y})`) },
    { weight: 1, arbitrary: fc.tuple(tie("any"), tie("any")).map(([x, y]) => `[${x}, ${y}]`) },
    { weight: 1, arbitrary: fc.tuple(tie("num"), tie("num")).map(([x, y]) => `(${x} ... ${y})`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("x1", "x3", "s", "p"), fc.constantFrom("++", "--")).map(([v, op]) => `${v}${op}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("x1", "x3", "a", "p", "nope"), tie("any")).map(([v, x]) => `(${v} = ${x})`) },
  ),
}));

const indent = (body: string) => body.replace(/^(?=.)/gm, "  ");
const block = (stmts: string[]) => `{\n${indent(stmts.join("\n"))}\n}`;

const { stmt } = fc.letrec<{ stmt: string }>((tie) => {
  const body = fc.array(tie("stmt"), { minLength: 0, maxLength: 3 });
  return {
    stmt: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 3, arbitrary: fc.array(expr, { minLength: 1, maxLength: 2 }).map((xs) => `print(${xs.join(", ")})`) },
      { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...NUM_LOCALS), num).map(([v, x]) => `${v} = ${x}`) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...STR_VARS), str).map(([v, x]) => `${v} = ${x}`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("x1", "x3", "s", "nope"), expr).map(([v, x]) => `${v} = ${x}`) },
      { weight: 1, arbitrary: fc.tuple(expr, expr).map(([i, x]) => `arr[${i}] = ${x}`) },
      { weight: 1, arbitrary: fc.tuple(expr, expr).map(([k, x]) => `o[${k}] = ${x}`) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom("x1", "w", "v3"), expr).map(([v, x]) => `var ${v} = ${x}`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NUM_LOCALS), fc.constantFrom("++", "--")).map(([v, op]) => `${v}${op}`) },
      { weight: 1, arbitrary: expr },
      { weight: 3, arbitrary: fc.tuple(fc.oneof({ weight: 4, arbitrary: bool }, { weight: 1, arbitrary: expr }), body, fc.option(body)).map(([c, t, e]) => `if ${c} ${block(t)}${e ? ` else ${block(e)}` : ""}`) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom("i", "j"), fc.constantFrom("0", "1", "-2", "a", "b"), fc.constantFrom("0", "3", "5", "a", "b", "0.5"), body).map(([v, x, y, bd]) => `for ${v} in ${x}...${y} ${block(bd)}`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("i", "j"), fc.constantFrom("arr", "s", "o", "a", "[1, 2]"), body).map(([v, it, bd]) => `for ${v} in ${it} ${block(bd)}`) },
      { weight: 1, arbitrary: fc.tuple(bool, body).map(([c, bd]) => `while ${c} ${block(bd)}`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("3", "a", "b"), body).map(([n, bd]) => `var k = 0\nwhile k < ${n} ${block([`k++`, ...bd])}`) },
      { weight: 1, arbitrary: fc.constantFrom("break", "continue") },
      { weight: 1, arbitrary: bool.map((c) => `if ${c} { break }`) },
      { weight: 1, arbitrary: bool.map((c) => `if ${c} { continue }`) },
      { weight: 2, arbitrary: fc.tuple(body, body, fc.boolean()).map(([t, c, named]) => `try ${block(t)} catch${named ? " e" : ""} ${block(named ? ["print(e)", ...c] : c)}`) },
      { weight: 1, arbitrary: expr.map((x) => `throw ${x}`) },
      { weight: 1, arbitrary: fc.oneof(num, expr).map((x) => `return ${x}`) },
      { weight: 1, arbitrary: body.map(block) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("number", "string", "number | string"), expr).map(([t, x]) => `var t1: ${t} = ${x}`) },
      { weight: 1, arbitrary: fc.tuple(expr).map(([x]) => `o.x = ${x}`) },
      { weight: 1, arbitrary: fc.constant("succeed") },
    ),
  };
});

/**
 * Top-level statements: most call one of the generated functions g1…g3 under a `try`, so a
 * program goes on past its first error (a `try` itself always runs in the closure compiler,
 * the bodies it calls run in the tier under test).
 */
const topStmt = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom("g1", "g2", "g3"), fc.oneof({ weight: 3, arbitrary: num }, { weight: 1, arbitrary: expr })).map(([g, x]) => `try {\n  print(${g}(${x}))\n} catch err {\n  print(err)\n}`) },
  { weight: 1, arbitrary: stmt },
);

/** A function: its locals, the generated statements, and a return showing its state. */
const fun = (name: string, params: string, body: string[], ret = "return [p, x1, x2, x3]") =>
  `fun ${name}(${params}) ${block(["var x1 = p", "var x2 = 0", 'var x3 = "t"', ...body, ret])}`;

const stmts = (n: number) => fc.array(stmt, { minLength: 1, maxLength: n });

const program = fc
  .tuple(fc.array(stmts(8), { minLength: 5, maxLength: 5 }), fc.array(topStmt, { minLength: 2, maxLength: 10 }))
  .map(([[f1, f2, g1, g2, g3], top]) =>
    [
      "var a = 2",
      "var b = 5",
      'var s = "hello"',
      "var arr = [1, 2, 3]",
      "var o = {x: 1}",
      "var i = 0",
      "var e = null",
      "var x1 = 1",
      "var x2 = 2",
      'var x3 = "m"',
      fun("f1", "p", f1!, "return x1"),
      fun("f2", "p, q", f2!),
      "fun rec(p) {\n  if p <= 0 { return 0 }\n  return p + rec(p - 1)\n}",
      "fun f0() {\n  return 0\n}",
      fun("g1", "p", g1!),
      fun("g2", "p", ["var k = 0", "while k < 4 {", "  k++", ...g2!.map(indent), "}"]),
      fun("g3", "p", ["for i in 0...p {", ...g3!.map(indent), "}"]),
      ...top,
      "var late = f0",
      "",
    ].join("\n"),
  );

// ─────────────────────────────────── the property ───────────────────────────────────

const cwd = tempDir();
const LIMITS = { maxSteps: 20_000, maxDepth: 150, maxArrayLength: 10_000, maxStringLength: 100_000 };

interface Outcome {
  output: string;
  value: RunResult["value"];
  errors: string[];
  /** Loop-progress events (start with position, items, end), in order. */
  events: string[];
}

function runTier(source: string, codegen: boolean): Outcome {
  let stderr = "";
  const events: string[] = [];
  const host = createNodeHost({
    cwd,
    stdout: () => {},
    stderr: (t) => (stderr += t),
    onEvent: (ev) => {
      if (ev.type === "loop-start") events.push(`start ${ev.variable} ${ev.total} ${ev.labels?.join("|")}@${ev.span.start.line}:${ev.span.start.column}`);
      // (loop-item events are told by time: compiler/loop-progress.ts)
      else if (ev.type === "loop-end") events.push(`end ${ev.loop} ${ev.ok} ${ev.done}`);
    },
  });
  const r = run(source, { fileName: "fuzz.pw", cwd, host, codegen, limits: LIMITS });
  const errors = r.diagnostics
    .filter((d) => d.severity === "error")
    .map((d) => `${d.code} at ${d.span.start.line}:${d.span.start.column}: ${d.message}`);
  return { output: r.output + stderr, value: r.value, errors, events };
}

describe("the two evaluation tiers agree", () => {
  it("random programs give the same output, value, errors and positions", () => {
    fc.assert(
      fc.property(program, (source) => {
        const fast = runTier(source, true);
        const slow = runTier(source, false);
        expect(fast.errors.filter((e) => e.startsWith("PW3099"))).toEqual([]);
        expect(fast).toEqual(slow);
      }),
    );
  }, 600_000);
});
