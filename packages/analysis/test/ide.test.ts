// Editor queries on plain offsets (the language server only converts them).
import { describe, expect, it } from "vitest";
import { AnalysisDocument, completion, documentSymbols, foldingRanges, hover, references, semanticTokens } from "../src/index.js";

const SRC = [
  "var config = {name: \"x\", depth: 2}",
  "trait Greeter {",
  "    fun hello(self, who) { return \"hi \" + who }",
  "}",
  "var reply = think {",
  "    Use ${config.name} here.",
  "    do {",
  "        $ echo ${config.depth} $HOME",
  "    }",
  "}",
  "print(config., reply, Greeter.)",
  "",
].join("\n");

const doc = new AnalysisDocument(SRC, { fileName: "/nowhere/ide.pw" });
const at = (needle: string, delta = 0) => SRC.indexOf(needle) + delta;

describe("editor queries", () => {
  it("completes members of an object literal and of a trait", () => {
    expect(completion(doc, at("config.,") + 7).map((c) => c.label)).toEqual(["name", "depth"]);
    expect(completion(doc, at("Greeter.)") + 8).map((c) => c.label)).toEqual(["hello"]);
  });

  it("hovers a do block with the number the model sees, and a declared name", () => {
    expect(hover(doc, at("do {"))?.markdown).toContain('`{"number": 0}`');
    expect(hover(doc, at("config.name") + 2)?.markdown).toContain("var config");
  });

  it("finds references across the prompt, the do block and code", () => {
    // Declaration, prompt interpolation, shell interpolation in the do block (the last line does not parse).
    expect(references(doc, at("config")).map((r) => SRC.slice(r.start, r.end + 6))).toEqual(["config = {na", "config.name}", "config.depth"]);
  });

  it("lists symbols with trait methods, and folds multi-line constructs", () => {
    const symbols = documentSymbols(doc);
    expect(symbols.map((s) => `${s.kind} ${s.name}`)).toEqual(["variable config", "class Greeter", "variable reply"]);
    expect(symbols[1]!.children.map((c) => c.name)).toEqual(["hello"]);
    const folds = foldingRanges(doc).map((r) => SRC.slice(r.start, r.end).split("\n")[0]);
    expect(folds).toEqual(expect.arrayContaining(["trait Greeter {", "think {", "{"]));
  });

  it("semantic tokens tell prompt text, interpolations, do blocks, shell text and shell interpolations apart", () => {
    const tokens = semanticTokens(doc);
    const kinds = (from: number, to: number) => tokens.filter((t) => t.start >= from && t.end <= to).map((t) => `${t.type}:${SRC.slice(t.start, t.end).trim()}`);
    const prompt = kinds(at("think {") + 7, at("print("));
    // Innermost wins: the name inside an interpolation is its own token.
    expect(prompt).toEqual(
      expect.arrayContaining(["prompt:Use", "interpolation:${", "variable:config", "interpolation:.name}", "doBlock:do", "shell:echo", "shellInterpolation:${", "shellInterpolation:.depth}"]),
    );
    // Sorted and non-overlapping.
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!.start).toBeGreaterThanOrEqual(tokens[i - 1]!.end);
  });
});
