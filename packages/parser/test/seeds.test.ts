// The seeds' programs: Patchwork snippets and Threadbare JSON examples.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import * as z from "zod";
import { describe, expect, it } from "vitest";
import { astToJson, loadThreadbare, parse } from "../src/index.js";
import { checkSpans, strip } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "fixtures", "seeds");
const files = readdirSync(fixtures).sort();

describe("seed snippets (Patchwork)", () => {
  it.each(files.filter((f) => f.endsWith(".pw")))("%s", (file) => {
    const source = readFileSync(join(fixtures, file), "utf8");
    const { program, diagnostics } = parse(source, { fileName: file });
    expect(diagnostics).toEqual([]);
    checkSpans(program, source);
    expect(strip(program)).toMatchSnapshot();
  });

  it("the nested-think seed has two do children, the second with an inner think", () => {
    const source = readFileSync(join(fixtures, "snippet_1.pw"), "utf8");
    const decl = parse(source).program.body[0]!;
    expect(decl).toMatchObject({
      kind: "VarDecl",
      init: {
        kind: "Think",
        children: [
          { kind: "Block", statements: [{ kind: "ShellStmt" }] },
          { kind: "Block", statements: [{ kind: "VarDecl", init: { kind: "Think", children: [] } }, { kind: "ExprStmt" }] },
        ],
      },
    });
  });

  // When the shared seeds are at hand (../shared), every ```patchwork block in them parses.
  const shared = join(here, "../../../../shared/seeds");
  const seedsHere = existsSync(shared);
  const title = "every patchwork block in ../shared/seeds parses";
  it.runIf(seedsHere)(seedsHere ? title : `${title} (skipped: the project's shared/ folder is not beside this checkout; CI has it)`, () => {
    for (const f of readdirSync(shared)) {
      const text = readFileSync(join(shared, f), "utf8");
      for (const m of text.matchAll(/```patchwork\n([\s\S]*?)```/g)) {
        expect(parse(m[1]!).diagnostics).toEqual([]);
      }
    }
  });
});

describe("seed programs (Threadbare JSON)", () => {
  it.each(files.filter((f) => f.endsWith(".json")))("%s", (file) => {
    const json = readFileSync(join(fixtures, file), "utf8");
    const { program, diagnostics } = loadThreadbare(json, { fileName: file });
    expect(diagnostics).toEqual([]);
    expect(program.body.length).toBe(1);
    checkSpans(program, json);
    expect(strip(program)).toMatchSnapshot();
  });

  it("maps Print, Block and Think onto the Patchwork AST", () => {
    const json = readFileSync(join(fixtures, "threadbare_6.json"), "utf8");
    const { program } = loadThreadbare(json);
    expect(strip(program.body[0])).toEqual({
      kind: "ExprStmt",
      expr: {
        kind: "Think",
        mode: "think",
        verbatim: true,
        prompt: [{ kind: "PromptText", value: "Categorize this document. do(0)=RECEIPT, do(1)=CONTRACT" }],
        children: [
          {
            kind: "Block",
            statements: [
              print("Categorized as: RECEIPT"),
              {
                kind: "ExprStmt",
                expr: {
                  kind: "Think",
                  mode: "think",
                  verbatim: true,
                  prompt: [{ kind: "PromptText", value: "Extract the dollar amount from this receipt. do(0) to confirm extraction." }],
                  children: [print("Amount: $542.00")],
                },
              },
            ],
          },
          print("Categorized as: CONTRACT"),
        ],
      },
    });
  });

  it("nodes and diagnostics point at their JSON text", () => {
    const json = '{"Block": {"children": [\n  {"Print": {"message": "a\\"b"}},\n  {"Think": {"think": {"prompt": "p", "children": [7]}}}\n]}}';
    const slice = (s: { start: { offset: number }; end: { offset: number } }) => json.slice(s.start.offset, s.end.offset);
    const { program, diagnostics } = loadThreadbare(json);
    const block = program.body[0]!;
    expect(slice(block.span)).toBe(json);
    if (block.kind !== "Block") throw new Error("shape");
    const print = block.statements[0]!;
    expect(slice(print.span)).toBe('{"Print": {"message": "a\\"b"}}');
    expect(print).toMatchObject({ expr: { args: [{ parts: [{ value: 'a"b' }] }] } });
    expect(diagnostics.map((d) => [d.message, slice(d.span), d.span.start.line])).toEqual([
      [expect.stringMatching(/^\$\.Block\.children\[1\]\.Think\.think\.children\[0\]: expected a node object/), "7", 3],
    ]);
  });

  it("accepts an already parsed value", () => {
    const { program, diagnostics } = loadThreadbare({ Block: { children: [{ Print: { message: "" } }] } });
    expect(diagnostics).toEqual([]);
    expect(strip(program.body)).toEqual([{ kind: "Block", statements: [{ kind: "ExprStmt", expr: { kind: "Call", callee: { kind: "Ident", name: "print" }, args: [{ kind: "String", parts: [] }] } }] }]);
  });

  const bad: [string, unknown, RegExp][] = [
    ["unknown node", { Think: { think: { prompt: "p", children: [{ Print: { message: "a" } }, { Foo: 1 }] } } }, /^\$\.Think\.think\.children\[1\]: expected exactly one of "Print", "Block", "Think" but found key "Foo"$/],
    ["wrong field type", { Print: { message: 3 } }, /^\$\.Print\.message: .*expected string/],
    ["missing field", { Think: { think: { prompt: "p" } } }, /^\$\.Think\.think\.children: /],
    ["extra key", { Print: { message: "x", extra: 1 } }, /^\$\.Print: .*extra/],
    ["two kinds", { Print: { message: "x" }, Block: { children: [] } }, /^\$: expected exactly one of .* but found keys "Print", "Block"$/],
    ["not an object", [1], /^\$: expected a node object .* but found an array$/],
    ["nested bad child", { Block: { children: [{ Block: { children: ["x"] } }] } }, /^\$\.Block\.children\[0\]\.Block\.children\[0\]: expected a node object .* but found a string$/],

    ["exact type message", { Print: { message: 3 } }, /^\$\.Print\.message: Invalid input: expected string, received number$/],
    ["missing nested field", { Think: { think: { children: [] } } }, /^\$\.Think\.think\.prompt: Invalid input: expected string, received undefined$/],
    ["body not an object", { Think: [1] }, /^\$\.Think: Invalid input: expected object, received array$/],
    ["inner body null", { Think: { think: null } }, /^\$\.Think\.think: Invalid input: expected object, received null$/],
    ["children not an array", { Block: { children: {} } }, /^\$\.Block\.children: Invalid input: expected array, received object$/],
    ["two extra keys", { Block: { children: [], a: 1, b: 2 } }, /^\$\.Block: Unrecognized keys: "a", "b"$/],
    ["extra nested key", { Think: { think: { prompt: "p", children: [], x: true } } }, /^\$\.Think\.think: Unrecognized key: "x"$/],
  ];
  it.each(bad)("bad shape: %s", (_name, value, message) => {
    const { diagnostics } = loadThreadbare(JSON.stringify(value), { fileName: "p.json" });
    expect(diagnostics.map((d) => d.code)).toEqual(["PW2102"]);
    expect(diagnostics[0]!.message).toMatch(message);
    expect(diagnostics[0]!.fileName).toBe("p.json");
  });

  it("invalid JSON is reported with its line and column", () => {
    const { program, diagnostics } = loadThreadbare('{\n  "Print": {\n    "message": "x",\n  }\n}');
    expect(program.body).toEqual([]);
    expect(diagnostics.map((d) => [d.code, d.span.start.line, d.span.start.column])).toEqual([["PW2101", 4, 3]]);
    expect(diagnostics[0]!.message).toMatch(/^invalid JSON: .* at line 4, column 3$/);
  });

  it("astToJson is pretty JSON with spans", () => {
    const { program } = parse("print(1)");
    const text = astToJson(program);
    expect(text.split("\n")[1]).toBe('  "kind": "Program",');
    expect(JSON.parse(text)).toEqual(program);
    expect(text).toContain('"span"');
  });
});

function print(message: string) {
  return { kind: "ExprStmt", expr: { kind: "Call", callee: { kind: "Ident", name: "print" }, args: [{ kind: "String", parts: [{ kind: "Text", value: message }] }] } };
}

describe("Threadbare's shape check agrees with a zod schema of the same shapes", () => {
  // zod validated these shapes before the hand-written check (a Threadbare file now loads no
  // validation library); on any JSON value both must accept and reject alike, and report the
  // same first problem when the value is a node of the right kind.
  const strict = {
    Print: z.object({ message: z.string() }).strict(),
    Block: z.object({ children: z.array(z.unknown()) }).strict(),
    Think: z.object({ think: z.object({ prompt: z.string(), children: z.array(z.unknown()) }).strict() }).strict(),
  };
  const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));
  const body = fc.dictionary(fc.constantFrom("message", "children", "think", "prompt", "x"), fc.oneof(leaf, fc.dictionary(fc.constantFrom("prompt", "children", "y"), leaf, { maxKeys: 3 })), { maxKeys: 3 });
  it("accepts exactly what zod accepts, with zod's message", () => {
    fc.assert(
      fc.property(fc.constantFrom("Print", "Block", "Think"), fc.oneof(body, leaf), (kind, value) => {
        // Children are kept empty so that only this node's own shape is checked.
        const v = value as Record<string, unknown>;
        if (v && typeof v === "object" && !Array.isArray(v)) {
          if (Array.isArray(v.children)) v.children = [];
          const think = v.think as Record<string, unknown> | undefined;
          if (think && typeof think === "object" && Array.isArray(think.children)) think.children = [];
        }
        const { diagnostics } = loadThreadbare({ [kind]: value }, { fileName: "p.json" });
        const r = strict[kind].safeParse(value);
        expect(diagnostics.length === 0).toBe(r.success);
        if (!r.success) {
          const issue = r.error.issues[0]!;
          expect(diagnostics[0]!.message).toBe(`$.${kind}${issue.path.map((p) => `.${String(p)}`).join("")}: ${issue.message}`);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
