// Generators of Patchwork programs for property tests (fast-check), shared by the parser's
// hostile-input properties, the formatter's properties and the comparison of the precomputed
// grammar analysis with Chevrotain's own (precomputed.property.test.ts).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";

const here = dirname(fileURLToPath(import.meta.url));
export const corpus: string[] = [];
for (const sub of ["golden", "seeds", "reference/book"]) {
  const dir = join(here, "fixtures", sub);
  for (const f of readdirSync(dir)) if (f.endsWith(".pw")) corpus.push(readFileSync(join(dir, f), "utf8"));
}

/** Pieces of Patchwork: openers and closers of every mode, operators, keywords, odd characters. */
export const pieces = [
  "{", "}", "(", ")", "[", "]", "<", ">", "$", "${", "$@{", "$<", "$@<", "$(", "($ ", "$ ", "$?", "$'x'", "\"", "'", "\\",
  "#", "\n", "\r\n", "\r", " ", "\t", "think {", "think <", "ask {", "ask <", "do {", "do <", "if ", "else ", "while ",
  "for ", " in ", "var ", "fun ", "worker ", "trait ", "type ", "import ", "export ", "default ", "from ", "try ",
  "catch ", "throw ", "await ", "@", "return", "break", "=", "==", "!=", "<=", "...", "++", "--", "&&", "||", "|", ";",
  ",", ".", ":", "!", "-", "+", "*", "/", "%", "x", "self", "1", "2.5", "1e3", "\"s $x ${y}\"", "`", "~", "é", "😀",
  "\u0000", "\uFEFF", "2>&1", ">>", "&>", "&", "'q'", "${x:-d}", "${#x}", "$1", "list<", "int", "?", "//", "$ls ", "$x",
];
const piece = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...pieces) }, { weight: 1, arbitrary: fc.string({ maxLength: 4 }) });
export const soup = fc.array(piece, { maxLength: 60 }).map((ps) => ps.join(""));

type Mutation = { at: number; op: "insert" | "delete" | "duplicate" | "cut"; piece: string; len: number };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom("insert", "insert", "delete", "duplicate", "cut"),
  piece: fc.constantFrom(...pieces),
  len: fc.integer({ min: 1, max: 30 }),
});

function mutate(text: string, ms: Mutation[]): string {
  let s = text;
  for (const m of ms) {
    const at = m.at % (s.length + 1);
    if (m.op === "insert") s = s.slice(0, at) + m.piece + s.slice(at);
    else if (m.op === "delete") s = s.slice(0, at) + s.slice(at + m.len);
    else if (m.op === "duplicate") s = s.slice(0, at) + s.slice(at, at + m.len) + s.slice(at);
    else s = s.slice(0, at);
  }
  return s;
}
export const mutated = fc
  .tuple(fc.nat({ max: corpus.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 5 }))
  .map(([i, ms]) => mutate(corpus[i]!, ms));


// ── well-formed programs with random layout (spacing, blank lines, comments) ──

const sp = fc.constantFrom("", " ", "  ");
const nl = fc.constantFrom("\n", "\n\n", "\n\n\n", " # note\n", "\n# own line\n", "\r\n");
const name = fc.constantFrom("a", "b", "total", "items", "x1", "_skip");

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    name,
    fc.constantFrom("1", "2.5", "true", "null", '"s ${a} t"', "$(echo hi)", "$?", "[]", "{}"),
    fc.tuple(tie("e"), sp, fc.constantFrom("+", "-", "*", "/", "%", "==", "!=", "<", "<=", "&&", "||", "..."), sp, tie("e")).map(
      ([l, s1, op, s2, r]) => `${l}${s1 || " "}${op}${s2 || " "}${r}`,
    ),
    fc.tuple(fc.constantFrom("!", "-"), tie("e")).map(([op, e]) => `${op}(${e})`),
    fc.tuple(tie("e")).map(([e]) => `(${e})`),
    fc.tuple(name, fc.array(tie("e"), { maxLength: 3 }), fc.boolean()).map(([f, args, multi]) =>
      multi ? `${f}(\n    ${args.join(",\n  # inside\n    ")}\n)` : `${f}(${args.join(", ")})`,
    ),
    fc.array(tie("e"), { maxLength: 3 }).map((xs) => `[${xs.join(", ")}]`),
    fc.array(fc.tuple(name, tie("e")), { minLength: 1, maxLength: 3 }).map((ps) => `{${ps.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
    fc.tuple(tie("e"), name).map(([e, n]) => `(${e}).${n}`),
    fc.tuple(tie("e"), tie("e")).map(([o, i]) => `(${o})[${i}]`),
    fc.constantFrom("think {\n  Say ${a}.\n    do {\n      print(1)\n    }\n}", "ask {\n hi\n}"),
  ),
})).e;

const stmt: fc.Arbitrary<string> = fc.letrec<{ s: string; block: string }>((tie) => ({
  block: fc.tuple(fc.array(fc.tuple(sp, tie("s"), nl), { maxLength: 3 }), sp).map(([ss, pad]) => `{${ss.length ? "\n" : ""}${ss.map(([p, s, n]) => `${p}${s}${n}`).join("")}${pad}}`),
  s: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.tuple(name, sp, expr).map(([n, s, e]) => `var ${n}${s} = ${e}`),
    fc.tuple(name, expr).map(([n, e]) => `${n} = ${e}`),
    expr.filter((e) => !e.startsWith("{")),
    fc.tuple(expr, tie("block"), fc.option(tie("block"))).map(([c, t, e]) => `if ${c} ${t}${e ? ` else ${e}` : ""}`),
    fc.tuple(name, expr, tie("block")).map(([n, e, b]) => `for ${n} in ${e} ${b}`),
    fc.tuple(expr, tie("block")).map(([c, b]) => `while ${c} ${b}`),
    fc.tuple(tie("block"), tie("block")).map(([a, b]) => `try ${a} catch e ${b}`),
    fc.constantFrom("$ echo hi   there", "return", "break", "continue", "print(a) ; print(b)"),
    fc.tuple(name, fc.array(name, { maxLength: 3 }), tie("block")).map(([n, ps, b]) => `fun ${n}(${ps.join(",")}) ${b}`),
  ),
})).s;

export const program = fc.array(fc.tuple(sp, stmt, nl), { maxLength: 6 }).map((ss) => ss.map(([p, s, n]) => `${p}${s}${n}`).join(""));

