// createSession: a REPL whose programs continue one another (the agent panel's prompts).
import { describe, expect, it } from "vitest";
import { createNodeHost, createSession, NoAgent } from "../src/index.js";

// (The results carry the output: the terminal gets nothing.)
const session = () => createSession({ agent: new NoAgent(), host: createNodeHost({ stdout: () => {}, stderr: () => {} }) });

describe("createSession", () => {
  it("keeps variables, functions and types of one program for the next", () => {
    const s = session();
    expect(s.run("var x = 1\nfun add(a) { return a + x }\ntype Id = string", { fileName: "<p1>" }).ok).toBe(true);
    const r = s.run('var id: Id = "a"\nprint(add(2), id)', { fileName: "<p2>" });
    expect(r).toMatchObject({ ok: true, output: "3 a\n" });
    expect(s.run("x + 10").value).toBe(11);
  });

  it("runs a program's entry with converted arguments after its statements (main), and keeps what it declares", () => {
    const s = session();
    const src = 'var greeting = "hi"\n@command greet\nfun greet(name: string, times: number) { return greeting + " " + name + times }';
    expect(s.run(src, { fileName: "g.pw", main: { entry: "greet", argStrings: { positional: ["Ada", "2"] } } }).value).toBe("hi Ada2");
    // A first word that names no entry: in a program with statements, the words are only its `args`…
    const words = s.run(src + "\nprint(args)", { fileName: "g.pw", main: { entry: "Bo", argStrings: { positional: ["1"] }, entryMayBeArgument: true } });
    expect(words).toMatchObject({ ok: true, output: "Bo, 1\n" });
    expect(words.entry).toBeUndefined();
    // …in one of declarations only, the arguments of its one command.
    const decls = src.replace('var greeting = "hi"\n', "");
    expect(s.run(decls, { fileName: "g.pw", main: { entry: "Bo", argStrings: { positional: ["1"] }, entryMayBeArgument: true } })).toMatchObject({ value: "hi Bo1", entry: "greet" });
    const bad = s.run(src, { fileName: "g.pw", main: { entry: "greet", argStrings: { positional: ["Ada", "x"] } } });
    expect(bad).toMatchObject({ ok: false, diagnostics: [{ code: "PW3065", fileName: "g.pw", span: { start: { line: 2 } } }] });
    expect(s.run('greet("Cy", 3)').value).toBe("hi Cy3");
  });

  it("runs worker tasks of a program, and of an earlier program, at await (the panel's programs are not files)", () => {
    const s = session();
    expect(s.run("worker w(x) { return x * 2 }\nself.delegate([w(1), w(2)]).await", { fileName: "<prompt 1>" })).toMatchObject({ ok: true, value: [2, 4] });
    expect(s.run("self.delegate([w(5)]).await", { fileName: "<prompt 2>" })).toMatchObject({ ok: true, value: [10] });
  });

  it("lets a later program redeclare a name (functions keep the binding they were written with)", () => {
    const s = session();
    s.run("var x = 1\nfun f() { return x }");
    const r = s.run("var x = 100\nfun g() { return x }\nprint(f(), g(), x)");
    expect(r.output).toBe("1 100 100\n");
    expect(s.run("fun f() { return 7 }\nf()").value).toBe(7);
  });

  it("keeps what a failing program declared before its error, and reports the error at its position", () => {
    const s = session();
    const r = s.run('var kept = 5\nthrow "boom"\nvar lost = 6', { fileName: "<p>" });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ fileName: "<p>", span: { start: { line: 2 } } });
    expect(s.run("kept").value).toBe(5);
    expect(s.run("lost").value).toBe(null);
  });

  it("runs no main: a program of items only has the value null", () => {
    const s = session();
    expect(s.run('fun main() { print("no") }')).toMatchObject({ ok: true, value: null, output: "" });
    expect(s.run("main()").output).toBe("no\n");
  });

  it("reports a parse error without changing the session", () => {
    const s = session();
    s.run("var a = 1");
    expect(s.run("var = 2").ok).toBe(false);
    expect(s.run("a").value).toBe(1);
  });
});
