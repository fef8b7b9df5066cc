// Think/ask: prompt rendering, the scripted agent driving `do` children, nesting, typed results.
import { describe, expect, it } from "vitest";
import { AgentError, DO_NOTE, NoAgent, ScriptedAgent, type Agent } from "../src/index.js";
import { runSource } from "./helpers.js";

describe("no-agent prompts", () => {
  it("renders dedented text, interpolation, do blocks and the do note", () => {
    const src = [
      'var who = "Ada"',
      "var xs = [1, 2]",
      "var r = think {",
      "    Hello $who, ${len(xs)} items: $@{xs}.",
      "    do {",
      '        print("child")',
      "    }",
      "    do { print(who) }",
      "}",
      "r",
    ].join("\n");
    const r = runSource(src, { agent: new NoAgent() });
    expect(r.error).toBeNull();
    expect(r.value).toEqual({
      __think_prompt: `Hello Ada, 2 items: 1, 2.\n[do 0]\ndo {\n    print("child")\n}\n[do 1]\ndo { print(who) }\n\n${DO_NOTE}`,
    });
  });

  it("is the default agent", () => {
    const r = runSource("think { hi }");
    expect(r.value).toEqual({ __think_prompt: "hi" });
  });

  it("adds the JSON answer format for typed thinks", () => {
    const r = runSource("var x: {name: string, tags: [string]} = think {\n  Describe it.\n}\nx");
    const prompt = (r.value as { __think_prompt: string }).__think_prompt;
    expect(prompt.startsWith("Describe it.\n\nAnswer with JSON of type `{name: string, tags: [string]}` in a ```json fence")).toBe(true);
    expect(prompt).toContain('"required": [\n    "name",\n    "tags"\n  ]');
  });
});

describe("the scripted agent", () => {
  it("runs do children: printed text goes back to the agent and to the output", () => {
    const agent = new ScriptedAgent([[{ do: 0 }, { do: 1 }, { do: 2 }, { do: 7 }, { reply: "done" }]]);
    const src = [
      'var n = 41',
      "var answer = think {",
      "  Try these.",
      '  do { print("zero", n) }',
      "  do { n + 1 }",
      "  do { missing() }",
      "}",
      'print("answer:", answer, "n:", n)',
    ].join("\n");
    const r = runSource(src, { agent });
    expect(r.error).toBeNull();
    expect(r.output).toBe("zero 41\nanswer: done n: 41\n");
    const results = agent.thinks[0]!.doResults;
    expect(results[0]).toEqual({ ok: true, text: "zero 41\n" });
    expect(results[1]).toEqual({ ok: true, text: "42" });
    expect(results[2]!.ok).toBe(false);
    expect(!results[2]!.ok && results[2]!.error).toContain("undefined variable 'missing'");
    expect(results[3]).toEqual({ ok: false, error: "there is no do block 7: valid numbers are 0 to 2" });
    expect(agent.thinks[0]!.request.childCount).toBe(3);
  });

  it("children see and update the variables in scope at the think", () => {
    const agent = new ScriptedAgent([[{ do: 0 }, { do: 0 }, { reply: "ok" }]]);
    const r = runSource("fun f() {\n  var count = 0\n  think {\n    do { count = count + 1 }\n  }\n  return count\n}\nprint(f())", { agent });
    // The think is a statement: its answer is shown.
    expect(r.output).toBe("ok\n2\n");
  });

  it("nests thinks 50 levels deep through do children", () => {
    const agent = new ScriptedAgent(() => [
      { do: 0 },
      {
        // The child's text holds everything printed below it: use its last line.
        reply: (rec) => {
          const d = rec.doResults[0]!;
          const inner = d.ok ? d.text.trim().split("\n").pop() : "?";
          return `L${rec.request.prompt.split("\n")[0]!.slice(6)}(${inner})`;
        },
      },
    ]);
    const src = [
      "fun level(n) {",
      '  if n == 0 { return "bottom" }',
      "  return think {",
      "    Level $n",
      "    do { print(level(n - 1)) }",
      "  }",
      "}",
      "print(level(50))",
    ].join("\n");
    const r = runSource(src, { agent });
    expect(r.error).toBeNull();
    expect(agent.thinks.length).toBe(50);
    let expected = "bottom";
    for (let i = 1; i <= 50; i++) expected = `L${i}(${expected})`;
    expect(r.output.trim().split("\n").pop()).toBe(expected);
    const starts = r.events.filter((e) => e.type === "think-start").length;
    const ends = r.events.filter((e) => e.type === "think-end").length;
    expect([starts, ends]).toEqual([50, 50]);
  });

  it("records prompts and reports agent failures at the think", () => {
    const agent = new ScriptedAgent([[{ fail: "the model refused", code: "PW4007" }]]);
    const r = runSource('print("a")\nvar x = think { hi }\nprint("b")', { agent });
    expect(agent.prompts).toEqual(["hi"]);
    expect(r.output).toBe("a\n");
    expect(r.error).toBe("PW4007 at 2:9: the model refused");
  });

  it("an agent failure can be caught", () => {
    const agent = new ScriptedAgent([[{ fail: "down" }]]);
    const r = runSource('try { think { x } } catch e { print("caught:", e.message) }', { agent });
    expect(r.output).toBe("caught: down\n");
  });

  it("wraps a non-AgentError exception as PW3031", () => {
    const agent: Agent = {
      think() {
        throw new Error("socket closed");
      },
    };
    const r = runSource("think { x }", { agent });
    expect(r.error).toBe("PW3031 at 1:1: the agent failed: socket closed");
  });
  it("AgentError class is the port's", () => {
    expect(new AgentError("PW4001", "x").code).toBe("PW4001");
  });
});

describe("result conversion", () => {
  it("untyped and string thinks give the reply text (a ```text fence wins)", () => {
    const agent = new ScriptedAgent([[{ reply: "  plain reply \n" }], [{ reply: "Sure:\n```text\nfenced\nlines\n```\nbye" }]]);
    const r = runSource("var a = think { one }\nvar b: string = think { two }\nprint(a)\nprint(b)", { agent });
    expect(r.output).toBe("plain reply\nfenced\nlines\n");
  });

  it("parses and validates JSON for typed thinks", () => {
    const agent = new ScriptedAgent([[{ reply: 'Here:\n```json\n{"name": "x", "n": 2, "extra": true}\n```' }], [{ reply: "[1, 2, 3]" }]]);
    const src = "var a: {name: string, n: number} = think { q }\nvar b: [number] = think { q }\nprint(a.name, a.n, b)";
    const r = runSource(src, { agent });
    expect(r.error).toBeNull();
    expect(r.output).toBe("x 2 1, 2, 3\n");
  });

  it("repairs once with a follow-up naming the error", () => {
    const agent = new ScriptedAgent([[{ reply: '{"n": "two"}' }, { reply: '```json\n{"n": 2}\n```' }]]);
    const r = runSource("var a: {n: number} = think { q }\nprint(a.n)", { agent });
    expect(r.error).toBeNull();
    expect(r.output).toBe("2\n");
    expect(agent.thinks[0]!.followUps.length).toBe(1);
    expect(agent.thinks[0]!.followUps[0]).toContain("n: ");
    expect(agent.thinks[0]!.followUps[0]).toContain("`{n: number}`");
  });

  it("fails with PW3030 when the repair fails too", () => {
    const agent = new ScriptedAgent([[{ reply: "not json" }, { reply: '{"n": null}' }]]);
    const r = runSource("var a: {n: number} = think { q }", { agent });
    expect(r.error).toMatch(/^PW3030 at 1:22: the reply does not match type \{n: number\}: n: .*\nreply: \{"n": null\}$/);
  });

  it("types a `return think` by the function's declared type", () => {
    const agent = new ScriptedAgent([[{ reply: '["a", "b"]' }]]);
    const r = runSource("fun names(): [string] {\n  return think { list }\n}\nprint(len(names()))", { agent });
    expect(r.output).toBe("2\n");
    expect(agent.thinks[0]!.request.typeText).toBe("[string]");
    expect(agent.thinks[0]!.request.schema).toEqual({ type: "array", items: { type: "string" } });
  });

  it("ask is sent like think", () => {
    const agent = new ScriptedAgent([[{ reply: "yes" }]]);
    const r = runSource("print(ask { Continue? })", { agent });
    expect(r.output).toBe("yes\n");
    expect(agent.thinks[0]!.request.kind).toBe("ask");
  });
});

describe("typed thinks without an agent", () => {
  it("pass the prompt object through any declared type", () => {
    const r = runSource("var s: string = think { a }\nvar n: {x: number} = think { b }\nvar t: [string] = []\nt = think { c }\nprint(s.__think_prompt, n.__think_prompt, t.__think_prompt)");
    expect(r.error).toBeNull();
    expect(r.output.startsWith("a b\n\nAnswer with JSON of type `{x: number}`")).toBe(true);
    expect(r.output).toContain(" c\n\nAnswer with JSON of type `[string]`");
  });

  it("an assignment to an annotated var types its think", () => {
    const agent = new ScriptedAgent([[{ reply: "[1, 2]" }]]);
    const r = runSource("var xs: [number] = []\nxs = think { numbers }\nprint(len(xs))", { agent });
    expect(r.error).toBeNull();
    expect(r.output).toBe("2\n");
    expect(agent.thinks[0]!.request.typeText).toBe("[number]");
  });
});

describe("children in loops and functions", () => {
  for (const codegen of [true, false]) {
    it(`see the current loop variable (${codegen ? "codegen" : "closures"})`, () => {
      const agent = new ScriptedAgent(() => [{ do: 0 }, { reply: "ok" }]);
      const src = "fun show(tag) {\n  for i in 1...2 {\n    var r = think {\n      Look.\n      do { print(tag, i) }\n    }\n  }\n}\nshow(\"a\")\nshow(\"b\")";
      const r = runSource(src, { agent, codegen });
      expect(r.error).toBeNull();
      expect(r.output).toBe("a 1\na 2\nb 1\nb 2\n");
    });
  }
});
