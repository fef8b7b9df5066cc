// Definition, references and rename across files: a module's item, its named imports, and
// `m.item` on module objects, in real files on disk (the language server's closed files).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AnalysisDocument, CachingResolver, hover, workspaceDefinition, workspacePrepareRename, workspaceReferences, workspaceRename, type FileRange, type Workspace } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "pw-ws-"));
const files: Record<string, string> = {
  "lib.pw": ["export fun square(n) {", "    return n * n", "}", "export fun twice(n) { return square(n) + square(n) }", "fun hidden() { return 0 }", ""].join("\n"),
  "main.pw": ['import {square, twice} from "./lib.pw"', "var a = square(2)", "fun f(x) {", "    var sq = 1", "    return square(x) + sq", "}", "print(a, twice(1), f(2))", ""].join("\n"),
  "other.pw": ['import lib from "./lib.pw"', "import ./{lib}", "print(lib.square(3))", "var square_count = 1", "print(square_count)", ""].join("\n"),
  "unrelated.pw": ["fun square(n) { return n }", "print(square(1))", ""].join("\n"),
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
const path = (name: string) => join(dir, name);

const resolver = new CachingResolver();
const ws: Workspace = {
  document: (p) => {
    try {
      return new AnalysisDocument(readFileSync(p, "utf8"), { fileName: p, resolver });
    } catch {
      return null;
    }
  },
  files: () => Object.keys(files).map(path),
};

/** `file:line:col text` of each range (1-based, as messages print them). */
function show(list: FileRange[]): string[] {
  return list.map((r) => {
    const text = files[r.path.slice(dir.length + 1)]!;
    const before = text.slice(0, r.start).split("\n");
    return `${r.path.slice(dir.length + 1)}:${before.length}:${before.at(-1)!.length + 1} ${text.slice(r.start, r.end)}`;
  });
}
const at = (name: string, needle: string, delta = 0) => files[name]!.indexOf(needle) + delta;

describe("across files", () => {
  const squareEverywhere = [
    "lib.pw:1:12 square",
    "lib.pw:4:30 square",
    "lib.pw:4:42 square",
    "main.pw:1:9 square",
    "main.pw:2:9 square",
    "main.pw:5:12 square",
    "other.pw:3:11 square",
  ];

  it("references of an imported function, asked in the importer, include the module and every importer", () => {
    expect(show(workspaceReferences(ws, path("main.pw"), at("main.pw", "square(x)")))).toEqual(squareEverywhere);
    // The same from the declaration, and from `lib.square` on a module object.
    expect(show(workspaceReferences(ws, path("lib.pw"), at("lib.pw", "square")))).toEqual(squareEverywhere);
    expect(show(workspaceReferences(ws, path("other.pw"), at("other.pw", "square")))).toEqual(squareEverywhere);
    // Without the declaration: the module's own declaration is left out.
    expect(show(workspaceReferences(ws, path("main.pw"), at("main.pw", "square"), false))).not.toContain("lib.pw:1:12 square");
  });

  it("a local name stays local; an unexported function is not looked for elsewhere", () => {
    expect(show(workspaceReferences(ws, path("main.pw"), at("main.pw", "sq =")))).toEqual(["main.pw:4:9 sq", "main.pw:5:24 sq"]);
    expect(show(workspaceReferences(ws, path("unrelated.pw"), at("unrelated.pw", "square")))).toEqual(["unrelated.pw:1:5 square", "unrelated.pw:2:7 square"]);
  });

  it("definition of `m.f` on a module object goes to f in m's file", () => {
    expect(show(workspaceDefinition(ws, path("other.pw"), at("other.pw", "square")))).toEqual(["lib.pw:1:12 square"]);
    expect(show(workspaceDefinition(ws, path("main.pw"), at("main.pw", "twice(1)")))).toEqual(["lib.pw:4:12 twice"]);
  });

  it("hover on `m.f` shows f's signature in m", () => {
    const other = ws.document(path("other.pw"))!;
    expect(hover(other, at("other.pw", "square") + 1)?.markdown).toBe("```patchwork\nfun square(n)\n```\nfrom `./lib.pw`");
  });

  it("rename edits every file that uses the item", () => {
    const r = workspaceRename(ws, path("main.pw"), at("main.pw", "square(2)"), "sqr");
    expect("edits" in r && show(r.edits)).toEqual(squareEverywhere);
    const local = workspaceRename(ws, path("main.pw"), at("main.pw", "sq ="), "one");
    expect("edits" in local && show(local.edits)).toEqual(["main.pw:4:9 sq", "main.pw:5:24 sq"]);
  });

  it("refuses builtins, invalid names, file-named modules and clashes, saying why", () => {
    const err = (file: string, needle: string, to: string) => {
      const r = workspaceRename(ws, path(file), at(file, needle), to);
      return "error" in r ? r.error : "renamed";
    };
    expect(err("main.pw", "print", "show")).toBe("'print' is a builtin function: it cannot be renamed");
    expect(err("main.pw", "square(2)", "9lives")).toMatch(/^'9lives' is not a valid name/);
    expect(err("main.pw", "square(2)", "while")).toMatch(/^'while' is not a valid name/);
    expect(err("main.pw", "square(2)", "len")).toBe("'len' is a builtin function: a declaration of that name would hide it");
    expect(err("other.pw", "lib}", "library")).toMatch(/is the name of the file lib\.pw .*rename the file instead/);
    // Already an item of the module; already a name in an importer; a local that would be captured.
    expect(err("main.pw", "square(2)", "twice")).toBe("cannot rename 'square' to 'twice': 'twice' is already declared at lib.pw:4:12");
    expect(err("lib.pw", "hidden", "twice")).toBe("cannot rename 'hidden' to 'twice': 'twice' is already declared at lib.pw:4:12");
    expect(err("main.pw", "square(2)", "a")).toBe("cannot rename 'square' to 'a': 'a' is already declared at main.pw:2:5");
    expect(err("main.pw", "square(2)", "sq")).toBe("cannot rename 'square' to 'sq': 'sq' is already declared at main.pw:4:9");
    expect(err("main.pw", "sq =", "x")).toBe("cannot rename 'sq' to 'x': 'x' is already declared at main.pw:3:7");
    expect(err("main.pw", "sq =", "square")).toBe("cannot rename 'sq' to 'square': 'square' is already used at main.pw:5:12");
    // A local may shadow a module name its scope does not use.
    expect(err("main.pw", "sq =", "a")).toBe("renamed");
    // Nothing here / not declared.
    expect(err("main.pw", "\n", "x")).toBe("there is no name here to rename");
    expect(workspacePrepareRename(ws, path("main.pw"), at("main.pw", "square(2)") + 2)).toEqual({ start: at("main.pw", "square(2)"), end: at("main.pw", "square(2)") + 6 });
    expect(workspacePrepareRename(ws, path("main.pw"), at("main.pw", "print"))).toEqual({ error: "'print' is a builtin function: it cannot be renamed" });
  });
});
