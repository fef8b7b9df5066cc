// Flat code of any length runs (issue 34): 160,000 statements in a row are no recursion, so no
// PW3070; the generated JS declares a handful of temporaries rather than one per statement, and
// compiles a long list in chunks whose signals (a `return`) end the list as before. The programs
// are built from one parsed statement repeated, so the test measures the evaluator, not the parser
// (scripts/bench-nesting.mjs times the whole run and its memory).
import { describe, expect, it } from "vitest";
import { parse, type Program, type Stmt } from "@patchwork/parser";
import { runParsed } from "../src/index.js";

const noImports = () => ({ program: null, error: "no imports here" });

/** `head`, then `repeated` N times, then `tail`, as one program (the repeated statement's nodes shared). */
function program(head: string, repeated: string, n: number, tail: string): Program {
  const p = parse(`${head}\n${repeated}\n${tail}\n`).program!;
  const [first, middle, last] = [p.body.slice(0, -2), p.body.at(-2)!, p.body.at(-1)!];
  return { ...p, body: [...first, ...Array<Stmt>(n).fill(middle as Stmt), last] } as Program;
}

function body(p: Program): Stmt[] {
  return p.body as Stmt[];
}

describe("flat programs of any length", () => {
  for (const codegen of [true, false]) {
    it(`160,000 statements \`n = n + 1\` at the top level run (${codegen ? "generated JS" : "closures"})`, () => {
      const p = program("var n = 0", "n = n + 1", 160_000, "print(n)");
      const r = runParsed(p, [], { fileName: "flat.pw", codegen }, noImports);
      expect(r.diagnostics).toEqual([]);
      expect(r.output).toBe("160000\n");
    });
  }

  it("a function of 10,000 statements returns from its middle; its locals span the chunks", () => {
    const src = `fun f() {\n  var n = 0\n  n = n + 1\n  if n > 6000 { return n }\n}\nprint(f())\n`;
    const p = parse(src).program!;
    const fn = p.body[0] as Stmt & { body: { statements: Stmt[] } };
    const [decl, step, check] = fn.body.statements;
    fn.body.statements = [decl!, ...Array<Stmt>(10_000).fill(step!), check!];
    // `n` passes 6000 in the third chunk: the return there must end the function with its value.
    fn.body.statements.splice(6002, 0, check!);
    const r = runParsed(p, [], { fileName: "f.pw" }, noImports);
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("6001\n");
    expect(body(p).length).toBe(2);
  });
});
