// Editor queries on plain offsets (the language server only converts them).
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("completes names while a line is half-typed: in ${…} of a shell line or a prompt, in a call, after a member dot", () => {
    const names = (src: string) => {
      const text = src.replace("|", "");
      return completion(new AnalysisDocument(text, { fileName: "/nowhere/half.pw" }), src.indexOf("|")).map((c) => c.label);
    };
    const fn = (line: string) => `var total = 1\nfun g(arg) {\n    var obj = {alpha: 1}\n    ${line}\n}\n`;
    for (const line of ["$ echo ${ar|", "var r = think {\n        Say ${ar|\n    }", 'print("x ${ar|', "print(ar|"]) {
      expect(names(fn(line))).toEqual(expect.arrayContaining(["arg", "obj", "total", "g", "print"]));
    }
    // Only names inside ${…}; keywords too in code.
    expect(names(fn("$ echo ${ar|"))).not.toContain("while");
    expect(names(fn("print(ar|"))).toContain("while");
    expect(names(fn("print(obj.|"))).toEqual(["alpha"]);
  });

  it("completes import paths: std modules, sibling files by name, file paths", () => {
    const dir = mkdtempSync(join(tmpdir(), "pw-ide-"));
    writeFileSync(join(dir, "helpers.pw"), "fun h() { return 1 }\n");
    writeFileSync(join(dir, "notes.txt"), "");
    const list = (d: string) => readdirSync(d);
    const labels = (text: string) => completion(new AnalysisDocument(text, { fileName: join(dir, "main.pw") }), text.length, list).map((c) => c.label);
    expect(labels("import std.")).toEqual(["log", "io", "json"]);
    expect(labels("import ./{")).toEqual(["helpers"]);
    expect(labels('import {h} from "./')).toEqual(["helpers.pw"]);
    expect(labels('import m from "')).toEqual(["helpers.pw"]);
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
