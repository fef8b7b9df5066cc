// Entries called from outside the program with arguments as data (an MCP tool call): the
// arguments are checked against the parameter types before the entry runs, its value against
// its return type after; both are positioned errors naming what did not fit.
import { describe, expect, it } from "vitest";
import { run } from "../src/index.js";

const SRC = [
  "type Mood = \"calm\" | \"loud\"",
  "@skill greet",
  "fun greet(name: string, times: number, mood: Mood, tags: [string], note: string | null) {",
  "  return \"${name} x${times} ${mood} ${len(tags)} ${note}\"",
  "}",
  "fun untyped(a) { return a }",
  "fun liar(): number { return \"seven\" }",
  "fun shape(): {n: number} { return {n: 1} }",
].join("\n");

const call = (entry: string, args: unknown[]) => run(SRC, { fileName: "g.pw", entry, args: args as never, checkTypes: true });

describe("typed arguments from outside", () => {
  it("runs the entry when every argument fits (a nullable parameter may be left out)", () => {
    const r = call("greet", ["Ada", 2, "calm", ["a", "b"]]);
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toBe("Ada x2 calm 2 null");
  });

  it("names the parameter, the expected type and what came, at the parameter", () => {
    const r = call("greet", ["Ada", "2", "calm", []]);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3065", span: { start: { line: 3, column: 25 } } });
    expect(r.diagnostics[0]!.message).toContain("argument 'times' expects number, got string \"2\"");
    expect(call("greet", ["Ada", 2, "angry", []]).diagnostics[0]!.message).toContain(`argument 'mood' expects Mood, got string "angry"`);
    expect(call("greet", ["Ada", 2, "calm", [1]]).diagnostics[0]!.message).toContain("argument 'tags' expects [string]");
  });

  it("refuses missing and extra arguments", () => {
    expect(call("greet", ["Ada"]).diagnostics[0]!.message).toContain("missing argument 'times' (number)");
    expect(call("untyped", []).diagnostics[0]!.message).toContain("missing argument 'a'");
    expect(call("untyped", [1, 2]).diagnostics[0]!.message).toContain("untyped takes 1 argument(s), got 2");
    expect(call("untyped", [{ x: 1 }]).value).toEqual({ x: 1 });
  });

  it("checks the value against the declared return type", () => {
    const r = call("liar", []);
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3004", span: { start: { line: 7, column: 13 } } });
    expect(r.diagnostics[0]!.message).toContain("the value of 'liar' expects number, got string");
    expect(call("shape", []).value).toEqual({ n: 1 });
  });

  it("changes nothing without checkTypes (worker tasks pass values as the language does)", () => {
    expect(run(SRC, { fileName: "g.pw", entry: "liar", args: [] }).value).toBe("seven");
  });
});

describe("a think's prompt at the boundary (no agent)", () => {
  const src = [
    "fun greet(name: string): string { return think { Greet ${name}. } }",
    "fun point(): {x: number, label: string} { return {x: 1, label: think { Name it. }} }",
    "fun list(): [number] { return [1, think { A number. }] }",
    "fun wrong(): {x: number} { return {x: \"one\"} }",
  ].join("\n");
  const call = (entry: string, args: string[] = []) => run(src, { fileName: "t.pw", entry, args, checkTypes: true });

  it("passes the declared return type wherever it is in the value, shown as the prompt", () => {
    const greet = call("greet", ["Ada"]);
    expect(greet.diagnostics).toEqual([]);
    expect(greet.value).toEqual({ __think_prompt: "Greet Ada." });
    expect(call("point").value).toEqual({ x: 1, label: { __think_prompt: "Name it." } });
    expect(call("list").value).toEqual([1, { __think_prompt: "A number." }]);
  });

  it("checks every other value as before", () => {
    expect(call("wrong").diagnostics[0]).toMatchObject({ code: "PW3004" });
  });
});
