// Each static check on a small program: its code, severity, message and position; and
// programs that must stay clean (scoping rules of the interpreter).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AnalysisDocument, CachingResolver, checkSource } from "../src/index.js";

const dir = join(import.meta.dirname, "fixtures", "project");

function check(source: string): string[] {
  return checkSource(source, { fileName: join(dir, "main.pw"), resolver: new CachingResolver() }).map(
    (d) => `${d.span.start.line}:${d.span.start.column} ${d.severity} ${d.code} ${d.message}`,
  );
}

describe("static checks", () => {
  it("undefined variables and functions", () => {
    expect(check("print(nope)\nmissing(1)\n")).toEqual(["1:7 error PW5001 undefined variable 'nope'", "2:1 error PW5001 undefined variable 'missing'"]);
    // `args`, the program's command-line words, is provided by the language (decision 0012).
    expect(check("print(len(args), args[0])\nfun f() { return args }\n")).toEqual([]);
  });

  it("a worker that reads a top-level variable (issue 35): PW5012 saying to pass it as an argument", () => {
    const found = check('var shared = "hi"\nworker w(x) {\n  return shared + x\n}\nfun f() { return shared }\nprint(f())\n');
    expect(found).toEqual([
      "3:10 error PW5012 worker 'w' uses the top-level variable 'shared', which a worker does not see (the file's top-level statements do not run in a worker task): pass it as an argument, `worker w(shared, …)` called as `w(shared)`",
    ]);
    // A worker's own variables and parameters, and functions, are fine.
    expect(check("fun helper() { return 1 }\nworker w(x) {\n  var y = x\n  return helper() + y\n}\n")).toEqual([]);
  });

  it("a Python or JavaScript name says what Patchwork writes (issue 35), as the run's PW3002 does", () => {
    expect(check("var a = None\nprint(a, range(1, 5), parseInt(\"3\"))\nconsole.log(a)\n")).toEqual([
      "1:9 error PW5001 undefined variable 'None': Patchwork writes `null`",
      "2:10 error PW5001 undefined variable 'range': a range is `a...b`, both ends included: `for i in 1...4` (Python's `range(1, 5)`)",
      "2:23 error PW5001 undefined variable 'parseInt': write `number(x)` to read a number from text",
      "3:1 error PW5001 undefined variable 'console': write `print(…)` (stdout) or `log(…)` (stderr) instead of `console.log(…)`",
    ]);
  });

  it("a top-level variable used before its declaration", () => {
    expect(check("print(later)\nvar later = 1\n")).toEqual([
      "1:7 error PW5001 undefined variable 'later' (it is declared later in the file)",
      "2:5 hint PW5005 'later' is declared but never used",
    ]);
  });

  it("functions see every top-level variable and item, in any order", () => {
    expect(check("fun f() { return g() + late }\nfun g() { return 1 }\nvar late = 2\nprint(f())\n")).toEqual([]);
  });

  it("block scopes end with their block", () => {
    expect(check("if true { var inner = 1\nprint(inner) }\nprint(inner)\n")).toEqual(["3:7 error PW5001 undefined variable 'inner'"]);
  });

  it("wrong number of arguments to a known function or builtin", () => {
    expect(check("fun f(a) { return a }\nprint(f(1, 2))\nprint(len())\n")).toEqual([
      "2:7 error PW5002 f takes at most 1 argument(s), got 2",
      "3:7 error PW5002 len takes 1 argument(s), got 0",
    ]);
  });

  it("do outside a prompt", () => {
    expect(check("do { print(1) }\n")[0]).toBe("1:1 error PW5008 'do' blocks are only allowed inside a prompt (think { … } or ask { … })");
  });

  it("break and continue outside a loop (a do block is not inside its think's loop)", () => {
    expect(check("break\nwhile true { continue }\nfun f() { for x in [1] { print(x) }\ncontinue }\n")).toEqual([
      "1:1 error PW5003 'break' outside of a loop",
      "4:1 error PW5003 'continue' outside of a loop",
    ]);
    expect(check('for x in [1] {\n    var r = think {\n        do {\n            break\n        }\n    }\n    print(r, x)\n}\n')).toEqual([
      "4:13 error PW5003 'break' outside of a loop",
    ]);
  });

  it("return outside a function is valid: at top level it ends the program (language-notes.md)", () => {
    expect(check("print(1)\nif true {\n    return 2\n}\nreturn\n")).toEqual([]);
  });

  it("imports: unknown std module, missing file, missing export; a good import is clean", () => {
    expect(check('import std.nope\nimport ./{absent}\nimport {square, nothere} from "./lib.pw"\nprint(square(2))\n')).toEqual([
      "1:1 error PW5004 cannot import 'std.nope': no such builtin module (there are std.log, std.io, std.json)",
      "2:1 error PW5004 cannot import './absent.pw': no such file",
      "3:1 error PW5007 module './lib.pw' has no export 'nothere'",
    ]);
    expect(check('import {square} from "./lib.pw"\nimport ./{lib}\nprint(square(2), lib.square(3))\n')).toEqual([]);
  });

  it("calling a function of a module imported whole that it does not export says so (issue 35)", () => {
    expect(check('import lib from "./lib.pw"\nprint(lib.square(2), lib.hidden())\n')).toEqual([
      "2:26 error PW5007 module './lib.pw' has no export 'hidden': 'hidden' is declared there without `export`: declare it `export fun hidden(…)` to import it",
    ]);
    expect(check("import ./{lib}\nprint(lib.hidden())\n")).toEqual([
      "2:11 error PW5007 module './lib.pw' has no export 'hidden': 'hidden' is declared there without `export`: declare it `export fun hidden(…)` to import it",
    ]);
  });

  it("importing a function its module declares without export says so (issue 35)", () => {
    expect(check('import {hidden} from "./lib.pw"\nprint(hidden())\n')).toEqual([
      "1:1 error PW5007 module './lib.pw' has no export 'hidden': 'hidden' is declared there without `export`: declare it `export fun hidden(…)` to import it",
    ]);
  });

  it("unused variables are hints; _names, parameters and loop variables are not reported", () => {
    expect(check("fun f(a) { var b = 1\nvar _c = 2\nfor i in [1] { }\nreturn a }\nprint(f(1))\nvar top = 1\n")).toEqual([
      "1:16 hint PW5005 'b' is declared but never used",
      "6:5 hint PW5005 'top' is declared but never used",
    ]);
  });

  it("a pattern field with a literal type checks the value: never reported unused; other pattern fields are", () => {
    expect(check('var {kind: "done", n: number, extra} = json("{}")\nvar {state: "ok" | "error"} = json("{}")\nprint(n)\n')).toEqual([
      "1:31 hint PW5005 'extra' is declared but never used",
    ]);
  });

  it("an interpolated function renders the function, not a value", () => {
    expect(check('fun f() { return 1 }\nprint("${f}")\nvar t = think {\n    ${len}\n}\nprint(t)\n')).toEqual([
      "2:10 warning PW5006 'f' is a function: ${f} renders the function itself, not a value (did you mean ${f()}?)",
      "4:7 warning PW5006 'len' is a builtin function: ${len} renders the builtin function itself, not a value (did you mean ${len()}?)",
    ]);
  });

  it("two items of one name", () => {
    expect(check("fun a() { return 1 }\nfun a() { return 2 }\nprint(a())\n")).toEqual(["2:5 error PW5009 'a' is already declared in this scope"]);
  });

  it("$NAME in a shell word falls back to the environment; ${name} does not", () => {
    expect(check("$ echo $HOME ${nope}\n")).toEqual(["1:16 error PW5001 undefined variable 'nope'"]);
  });

  it("parse errors come first-class, several per file, with the static checks", () => {
    const out = check("var = 1\nprint(x)\nvar y = (1 +\n");
    expect(out.some((l) => l.includes("PW2001"))).toBe(true);
    expect(out).toContain("2:7 error PW5001 undefined variable 'x'");
  });
});

describe("imported modules", () => {
  it("are analysed once per version of their text", () => {
    const texts = new Map([[join(dir, "m.pw"), "export fun f() { return 1 }\n"]]);
    const resolver = new CachingResolver((path) => {
      const t = texts.get(path);
      if (t === undefined) throw Object.assign(new Error("missing"), { code: "ENOENT" });
      return t;
    });
    const main = 'import {f} from "./m.pw"\nprint(f())\n';
    const opts = { fileName: join(dir, "main.pw"), resolver };
    expect(checkSource(main, opts)).toEqual([]);
    expect(checkSource(main, opts)).toEqual([]);
    expect(resolver.analysed).toBe(1);
    texts.set(join(dir, "m.pw"), "export fun g() { return 1 }\n");
    expect(checkSource(main, opts).map((d) => d.code)).toEqual(["PW5007"]);
    expect(resolver.analysed).toBe(2);
  });

  it("edits of the importer do not analyse the unchanged imported file again", () => {
    const texts = new Map([[join(dir, "m.pw"), "export fun f() { return 1 }\n"]]);
    let reads = 0;
    const resolver = new CachingResolver((path) => (reads++, texts.get(path)!));
    const main = 'import {f} from "./m.pw"\nvar a = f()\nprint(a)\nprint(2)\n';
    const doc = new AnalysisDocument(main, { fileName: join(dir, "main.pw"), resolver });
    expect(doc.diagnostics()).toEqual([]);
    for (let i = 0; i < 5; i++) {
      doc.edit(main.length, main.length, `print(${i})\n`);
      expect(doc.diagnostics()).toEqual([]);
    }
    // Its text is looked up on every check (it may have changed), analysed once.
    expect(reads).toBe(6);
    expect(resolver.analysed).toBe(1);
    expect(doc.importedPaths()).toEqual([join(dir, "m.pw")]);
  });
});

describe("a syntax error is one finding (issue 23)", () => {
  it("a variable used only in the statement that failed to parse is not 'never used'", () => {
    expect(check("var x = 1\nif (x > 0 {\n  print(x)\n}\n")).toEqual(["2:11 error PW2001 expected ')' to close the '(' at 2:4 but found '{'"]);
    expect(check("fun f(a) {\n  var b = 2\n  print(a + b\n}\nf(1)\n")).toEqual([
      "4:1 error PW2001 expected ')' to close the '(' at 3:8 but found '}'",
    ]);
  });

  it("a variable mentioned nowhere else is still reported when the file has a syntax error", () => {
    expect(check("var unused = 3\nprint(1\n")).toEqual([
      "1:5 hint PW5005 'unused' is declared but never used",
      "2:8 error PW2001 expected ')' to close the '(' at 2:6 but found end of input",
    ]);
  });

  it("a JavaScript word is one error, not also an undefined variable; nor is a use of what it declared", () => {
    expect(check("let x = 1\n")).toEqual(["1:1 error PW2010 'let' is not Patchwork: declare variables with 'var': `var x = 1`"]);
    expect(check("fun f() {\n  fun g() { return 1 }\n  return g()\n}\nprint(f())\n")).toEqual([
      "2:3 error PW2010 functions are top-level items: declare this `fun` at the top level of the file, not inside another function",
    ]);
  });
});
