// The incremental document (chunks re-parsed edit by edit) must give exactly what a fresh,
// whole-file check gives: same codes, messages, severities and offsets, after every edit of a
// random sequence (insertions and deletions of code pieces, newlines, braces, quotes, prompt
// openers, whole lines), on every corpus program.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AnalysisDocument, checkSource, type OffsetDiagnostic } from "../src/index.js";

const root = join(import.meta.dirname, "../../..");

function pwFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...pwFiles(p));
    else if (name.endsWith(".pw")) out.push(p);
  }
  return out;
}

const corpus = [
  ...pwFiles(join(root, "examples")),
  ...pwFiles(join(root, "packages/interpreter/test/fixtures")),
  ...pwFiles(join(root, "packages/parser/test/fixtures")),
].map((f) => readFileSync(f, "utf8"));

const pieces = [
  "x", "var y = 1\n", "\n", "}", "{", "(", ")", '"', "think {\n", "fun g() {\n", "+", " else ", "#", "$ echo hi\n",
  "print(a)", "break\n", "do {", "${", "[", "]", "\n\n", "if a {", "return 1\n", "import ./{nope}\n", "var", "`",
];

type Edit = { at: number; del: number; insert: string };
const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  del: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
  insert: fc.oneof(fc.constantFrom(...pieces), fc.constant("")),
});

const shape = (ds: readonly OffsetDiagnostic[]) => ds.map((d) => `${d.start}-${d.end} ${d.severity} ${d.code} ${d.message}`);

function full(text: string): string[] {
  const src = checkSource(text, { fileName: "/nowhere/test.pw" });
  return src.map((d) => `${d.span.start.offset}-${d.span.end.offset} ${d.severity} ${d.code} ${d.message}`);
}

describe("incremental analysis", () => {
  it("equals a whole-file check after every edit", () => {
    fc.assert(
      fc.property(fc.nat({ max: corpus.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 8 }), (i, edits) => {
        let text = corpus[i]!;
        const doc = new AnalysisDocument(text, { fileName: "/nowhere/test.pw" });
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          const end = Math.min(text.length, at + e.del);
          text = text.slice(0, at) + e.insert + text.slice(end);
          doc.edit(at, end, e.insert);
          expect(doc.text).toBe(text);
          expect(shape(doc.diagnostics())).toEqual(full(text));
        }
        // Opening the edited text afresh (pieces parsed one by one, as the server's stepped build).
        expect(shape(new AnalysisDocument(text, { fileName: "/nowhere/test.pw" }).diagnostics())).toEqual(full(text));
      }),
    );
  });

  it("an edit that mends a syntax error is still re-parsed locally (the region widened), and equals a whole-file check", () => {
    let text = "";
    for (let i = 0; i < 200; i++) text += `fun f${i}(a) {\n    var b = a + ${i}\n    if b > 2 {\n        print("b: \${b}")\n    }\n    return b\n}\n\n`;
    const doc = new AnalysisDocument(text, { fileName: "/nowhere/big.pw" });
    const at = text.indexOf("    var b = a + 100");
    // A stray `}`: it ends the function early, whose rest becomes top-level pieces…
    expect(doc.edit(at, at, "}", true)).toBe(true);
    expect(doc.chunks.length).toBeGreaterThan(200);
    expect(shape(doc.diagnostics())).toEqual(full(doc.text));
    // …and its removal: those pieces and their neighbours no longer stand alone, a wider region does.
    expect(doc.edit(at, at + 1, "", true)).toBe(true);
    expect(doc.lastReparsed).toBeLessThan(text.length / 4);
    expect(doc.text).toBe(text);
    expect(doc.chunks.length).toBe(200);
    expect(shape(doc.diagnostics())).toEqual([]);
    // A prompt opened to the end of the file: the whole text is parsed again (here deferred).
    expect(doc.edit(at, at, "var s = think {\n", true)).toBe(false);
  });

  it("a build in steps gives the document a plain open gives, and stops when told its text is stale", async () => {
    const text = corpus.join("\n");
    let pauses = 0;
    const built = await AnalysisDocument.build(text, { fileName: "/nowhere/all.pw" }, { pause: () => (pauses++, new Promise((r) => setImmediate(r))), sliceMs: 0 });
    expect(pauses).toBeGreaterThan(1);
    expect(shape(built!.diagnostics())).toEqual(shape(new AnalysisDocument(text, { fileName: "/nowhere/all.pw" }).diagnostics()));
    let n = 0;
    const stopped = await AnalysisDocument.build(text, { fileName: "/nowhere/all.pw" }, { pause: () => Promise.resolve(), stale: () => ++n > 2, sliceMs: 0 });
    expect(stopped).toBeNull();
    expect(n).toBe(3);
  });

  it("re-parses only around the edit", () => {
    let text = "";
    for (let i = 0; i < 200; i++) text += `fun f${i}(a) {\n    var b = a + ${i}\n    return b\n}\n\n`;
    const doc = new AnalysisDocument(text, { fileName: "/nowhere/big.pw" });
    expect(doc.chunks.length).toBe(200);
    const at = text.indexOf("var b = a + 100");
    doc.edit(at + 4, at + 5, "c");
    expect(doc.lastReparsed).toBeLessThan(200);
    expect(doc.diagnostics().map((d) => d.message)).toEqual(["'c' is declared but never used", "undefined variable 'b'"]);
  });
});
