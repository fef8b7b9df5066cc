// The formatter's properties on generated programs (fast-check: seeded in `npm test`, more
// runs in `npm run fuzz`): programs built from a small grammar with random layout (spacing,
// indentation, blank lines, comments between, after and inside statements), and corpus
// programs with random lines re-indented or duplicated. Every one that parses must format to
// text with the same AST and comments, and formatting that text again must change nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "../../src/index.js";
import { corpusFiles, repoRoot, roundtrip } from "./roundtrip.js";

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

const program = fc.array(fc.tuple(sp, stmt, nl), { maxLength: 6 }).map((ss) => ss.map(([p, s, n]) => `${p}${s}${n}`).join(""));

const corpus = corpusFiles()
  .map((f) => readFileSync(join(repoRoot, f), "utf8"))
  .filter((s) => !parse(s).diagnostics.some((d) => d.severity === "error"));

/** Re-indents or duplicates some lines of a corpus program. */
const relaid = fc
  .tuple(fc.nat({ max: corpus.length - 1 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom("indent", "dedent", "blank", "dup")), { minLength: 1, maxLength: 6 }))
  .map(([i, edits]) => {
    const lines = corpus[i]!.split("\n");
    for (const [at, op] of edits) {
      const k = at % lines.length;
      if (op === "indent") lines[k] = "   " + lines[k];
      else if (op === "dedent") lines[k] = lines[k]!.replace(/^\s+/, "");
      else if (op === "blank") lines.splice(k, 0, "");
      else lines.splice(k, 0, lines[k]!);
    }
    return lines.join("\n");
  });

function holds(source: string): void {
  if (parse(source).diagnostics.some((d) => d.severity === "error")) return;
  const { problems, out } = roundtrip(source);
  if (problems.length > 0) throw new Error(`${problems.join("; ")}\n--- input\n${source}\n--- output\n${out}`);
}

describe("formatter properties", () => {
  it("generated programs: same AST, same comments, idempotent", () => {
    let parsed = 0;
    fc.assert(
      fc.property(program, (source) => {
        if (!parse(source).diagnostics.some((d) => d.severity === "error")) parsed++;
        holds(source);
      }),
    );
    // The generator must mostly produce valid programs, or the property says little.
    expect(parsed).toBeGreaterThan(10);
  });

  it("re-laid-out corpus programs: same AST, same comments, idempotent", () => {
    fc.assert(fc.property(relaid, holds));
  });
});
