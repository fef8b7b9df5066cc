// What running a program or an entry gives back (language.md §5, decision 0012): the answers of
// thinks used as statements, shown; the words after the file; the entry that ran and its value.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { entryResultText, ScriptedAgent, valueText } from "../src/index.js";
import { runSource, tempDir } from "./helpers.js";

const both = [true, false] as const;

describe("a think used as a statement shows its answer", () => {
  for (const codegen of both) {
    const tier = codegen ? "compiled" : "closures";
    it(`at top level, in a function and in a block, in program order (${tier})`, () => {
      const agent = new ScriptedAgent([[{ reply: "one" }], [{ reply: "two\n" }], [{ reply: "three" }], [{ reply: "kept" }]]);
      const src = 'print("a")\nthink { first }\nfun f() {\n  ask { second }\n  if true { think { third } }\n  return 1\n}\nprint(f())\nvar x = think { not shown }\nprint("x=" + x)';
      const r = runSource(src, { agent, codegen });
      expect(r.error).toBeNull();
      expect(r.output).toBe("a\none\ntwo\nthree\n1\nx=kept\n");
    });

    it(`an answer used as a value is not shown: var, return, argument, a worker's last statement (${tier})`, () => {
      const agent = new ScriptedAgent(() => [{ reply: "ans" }]);
      const src = "fun g() { return think { r } }\nworker w() {\n  think { last }\n}\nvar a = think { v }\nprint(len(think { arg }))\nprint(g())\nprint(self.delegate([w()]).await)";
      const r = runSource(src, { agent, codegen });
      expect(r.error).toBeNull();
      expect(r.output).toBe("3\nans\nans\n");
    });
  }

  it("inside a do block, the inner answer is part of the block's output, which the outer think receives", () => {
    const agent = new ScriptedAgent([[{ do: 0 }, { reply: (rec) => `outer saw: ${JSON.stringify(rec.doResults[0])}` }], [{ reply: "inner answer" }]]);
    const r = runSource('think {\n  Outer.\n  do {\n    print("before")\n    think { Inner. }\n  }\n}', { agent });
    expect(r.error).toBeNull();
    expect(r.output).toBe('before\ninner answer\nouter saw: {"ok":true,"text":"before\\ninner answer\\n"}\n');
  });

  it("without an agent it shows the prompt value, as any think value prints", () => {
    const r = runSource("think { Say hi to ${1 + 1} }");
    expect(r.output).toBe('{"__think_prompt":"Say hi to 2"}\n');
  });

  it("Threadbare programs keep the seeds' semantics: only Print nodes write", () => {
    const program = { Block: { children: [{ Print: { message: "p" } }, { Think: { think: { prompt: "q", children: [] } } }] } };
    const agent = new ScriptedAgent([[{ reply: "answer" }]]);
    const r = runSource(JSON.stringify(program), { agent, fileName: "t.json" });
    expect(r.error).toBeNull();
    expect(r.output).toBe("p\n");
  });
});

describe("a skill or command gives back its last expression, as a worker does", () => {
  it("the reference's skills, ending with the delegation of a worker that ends with its think, return that answer", () => {
    const agent = new ScriptedAgent(() => [{ reply: "Hello, Alice!" }]);
    const src = "worker w(name) {\n  think { Greet ${name}. }\n}\ntrait G: Agent {\n  @skill greet\n  fun greet(name) {\n    self.delegate([w(name)]).await\n  }\n  @command shout\n  fun shout(x) { x + \"!\" }\n  fun plain(x) { x }\n}";
    const greet = runSource(src, { agent, entry: "greet", argStrings: { positional: ["Alice"] } });
    expect(greet.error).toBeNull();
    expect(greet).toMatchObject({ entry: "greet", value: ["Hello, Alice!"], output: "" });
    expect(runSource(src, { entry: "shout", argStrings: { positional: ["hi"] } }).value).toBe("hi!");
    // A plain fun still gives back only what it returns.
    expect(runSource(src, { entry: "G.plain", argStrings: { positional: ["v"] } }).value).toBeNull();
  });
});

describe("the words after the file", () => {
  const words = (src: string, list: string[], extra: { fileName?: string; cwd?: string } = {}) =>
    runSource(src, { entry: list[0], argStrings: { positional: list.slice(1) }, entryMayBeArgument: true, ...extra });

  it("when the first names an entry, it runs after the statements with the rest; args holds every word", () => {
    const r = words('print("top", args)\nfun hello(n) { return "hello " + n }', ["hello", "World"]);
    expect(r.error).toBeNull();
    expect(r.output).toBe("top hello, World\n");
    expect(r.entry).toBe("hello");
    expect(r.value).toBe("hello World");
  });

  it("in a file with top-level statements, other words are only the program's args", () => {
    const r = words('print(len(args), args[0], args[1])\nfun main() { print("not run") }', ["foo", "bar"]);
    expect(r.error).toBeNull();
    expect(r.output).toBe("2 foo bar\n");
    expect(r.entry).toBeUndefined();
  });

  it("args is an empty array without words, and a declaration of that name hides it", () => {
    expect(runSource("print(typeof(args), len(args))").output).toBe("array 0\n");
    expect(words('var args = "mine"\nprint(args)', ["x"]).output).toBe("mine\n");
  });

  it("in a file whose default entry takes them, they are its arguments; an arity error says the first word is no entry", () => {
    const src = "@skill greet\nfun greet(name: string, times: number) { return name + times }";
    const ok = words(src, ["Ada", "2"]);
    expect(ok.error).toBeNull();
    expect(ok.entry).toBe("greet");
    expect(ok.value).toBe("Ada2");
    const bad = words(src, ["Ada"]);
    expect(bad.error).toMatch(/^PW3065 at 1:1: missing argument\(s\) 'times': greet\(name: string, times: number\) \('Ada' is not an entry of this file, so it was taken as the first argument of greet\)$/);
  });

  it("in a file of declarations only with no default entry, an error naming the word and listing the entries, before anything runs", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "lib.pw"), 'print("lib loaded")\nexport fun x() { return 1 }\n');
    const r = words("import ./{lib}\nfun a(x) { return x }\nfun b() { return 1 }", ["zzz", "q"], { cwd: dir, fileName: join(dir, "main.pw") });
    expect(r.output).toBe("");
    expect(r.error).toBe(
      "PW3051 at 1:1: entry point 'zzz' not found (the file has no top-level statements or default entry that would take 'zzz' as an argument); its entries: a(x), b()",
    );
  });
});

describe("an entry's result as text, on every host alike", () => {
  it("nothing for null, a string as is, other values as pretty JSON, after the output", () => {
    expect(valueText(null)).toBe("");
    expect(valueText("hi")).toBe("hi");
    expect(valueText({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(entryResultText({ output: "x", value: null })).toBe("x");
    expect(entryResultText({ output: "x", value: "v" })).toBe("x\nv\n");
    expect(entryResultText({ output: "x\n", value: 3 })).toBe("x\n3\n");
    expect(entryResultText({ output: "", value: false })).toBe("false\n");
  });
});
