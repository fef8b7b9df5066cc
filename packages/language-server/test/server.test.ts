// `patchwork lsp` as editors run it: a real child process spoken to over stdio with LSP
// framing. Diagnostics are those of `patchwork check` (one implementation), pushed on open and
// after incremental edits; every editor query answers; bad input never kills the server.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CachingResolver, checkSource } from "@patchwork/analysis";
import { format } from "@patchwork/parser";
// @ts-expect-error: a plain .mjs helper shared with the benchmark
import { LspClient } from "../../../scripts/lib/lsp-client.mjs";

const bin = join(import.meta.dirname, "../../cli/bin/patchwork.js");
const dir = mkdtempSync(join(tmpdir(), "pw-lsp-"));
const libPath = join(dir, "lib.pw");
const mainPath = join(dir, "main.pw");
const LIB = "export fun square(n: number) {\n    return n * n\n}\n";
const MAIN = [
  'import {square} from "./lib.pw"', // 0
  "var total = square(3)", // 1
  "fun show(label: string) {", // 2
  '    print("${label}: ${total}")', // 3
  "}", // 4
  "show(nope)", // 5
  "var reply = think {", // 6
  "    Count to ${total}.", // 7
  "    do {", // 8
  '        print("hi")', // 9
  "    }", // 10
  "}", // 11
  "print(reply, len(total, 2))", // 12
  "",
].join("\n");
writeFileSync(libPath, LIB);
writeFileSync(mainPath, MAIN);
// Another importer of lib, never opened: found in the workspace folder.
const userPath = join(dir, "user.pw");
writeFileSync(userPath, 'import {square} from "./lib.pw"\nprint(square(2))\n');
const uri = pathToFileURL(mainPath).href;

type Diag = { range: { start: { line: number; character: number } }; code: string; message: string; severity: number };

let client: InstanceType<typeof LspClient>;
let version = 1;

async function diagnosticsAfter(send: () => void, forUri = uri): Promise<Diag[]> {
  const since = client.notifications.length;
  send();
  const n = await client.waitFor((m: { method: string; params: { uri: string } }) => m.method === "textDocument/publishDiagnostics" && m.params.uri === forUri, since, 20_000);
  return n.params.diagnostics;
}

const pos = (line: number, character: number) => ({ line, character });
const td = { textDocument: { uri } };

beforeAll(async () => {
  client = new LspClient(process.execPath, [bin, "lsp", "--stdio"]);
  const init = await client.initialize(pathToFileURL(dir).href);
  expect(init.capabilities.textDocumentSync.change).toBe(2); // incremental
});

afterAll(async () => {
  if (client) {
    const exit = await client.shutdown();
    expect(exit.code).toBe(0);
    // Nothing but protocol on stdout, ever.
    expect(client.stdoutNoise).toBe("");
  }
});

describe("patchwork lsp", () => {
  it("pushes the diagnostics `patchwork check` gives, on open", async () => {
    const diags = await diagnosticsAfter(() =>
      client.notify("textDocument/didOpen", { textDocument: { uri, languageId: "patchwork", version, text: MAIN } }),
    );
    const expected = checkSource(MAIN, { fileName: mainPath, resolver: new CachingResolver() });
    expect(diags.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code} ${d.message}`)).toEqual(
      expected.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code} ${d.message}`),
    );
    expect(diags.map((d) => d.code)).toEqual(["PW5001", "PW5002"]);
  });

  it("updates diagnostics after incremental edits", async () => {
    // Fix `nope` → `"x"` on line 5, then break line 1.
    let diags = await diagnosticsAfter(() =>
      client.notify("textDocument/didChange", {
        textDocument: { uri, version: ++version },
        contentChanges: [{ range: { start: pos(5, 5), end: pos(5, 9) }, text: '"x"' }],
      }),
    );
    expect(diags.map((d) => d.code)).toEqual(["PW5002"]);
    diags = await diagnosticsAfter(() =>
      client.notify("textDocument/didChange", {
        textDocument: { uri, version: ++version },
        contentChanges: [{ range: { start: pos(1, 12), end: pos(1, 12) }, text: "+ " }],
      }),
    );
    expect(diags[0]!.code).toMatch(/^PW2/);
    diags = await diagnosticsAfter(() =>
      client.notify("textDocument/didChange", {
        textDocument: { uri, version: ++version },
        contentChanges: [{ range: { start: pos(1, 12), end: pos(1, 14) }, text: "" }],
      }),
    );
    expect(diags.map((d) => d.code)).toEqual(["PW5002"]);
  });

  it("an edit of an imported open file updates the importer's diagnostics", async () => {
    const libUri = pathToFileURL(libPath).href;
    // Opening lib checks main again (an open file's text may differ from the disk's).
    const since = client.notifications.length;
    await diagnosticsAfter(() => client.notify("textDocument/didOpen", { textDocument: { uri: libUri, languageId: "patchwork", version: 1, text: LIB } }), libUri);
    await client.waitFor((m: { method: string; params: { uri: string } }) => m.method === "textDocument/publishDiagnostics" && m.params.uri === uri, since, 20_000);
    // Rename the export in the (unsaved) lib: main's import now names something lib lacks.
    const diags = await diagnosticsAfter(() =>
      client.notify("textDocument/didChange", {
        textDocument: { uri: libUri, version: 2 },
        contentChanges: [{ range: { start: pos(0, 11), end: pos(0, 17) }, text: "cube" }],
      }),
    );
    expect(diags.map((d) => d.code)).toEqual(["PW5007", "PW5002"]);
    const back = await diagnosticsAfter(() =>
      client.notify("textDocument/didChange", { textDocument: { uri: libUri, version: 3 }, contentChanges: [{ text: LIB }] }),
    );
    expect(back.map((d) => d.code)).toEqual(["PW5002"]);
    client.notify("textDocument/didClose", { textDocument: { uri: libUri } });
    // An edit of a file main does not import does not check main again: no diagnostics for main
    // between the edited file's and the answer to a request sent after it.
    const otherUri = pathToFileURL(join(dir, "notes.pw")).href;
    await diagnosticsAfter(() => client.notify("textDocument/didOpen", { textDocument: { uri: otherUri, languageId: "patchwork", version: 1, text: "print(1)\n" } }), otherUri);
    const mark = client.arrivals.length;
    await diagnosticsAfter(() => client.notify("textDocument/didChange", { textDocument: { uri: otherUri, version: 2 }, contentChanges: [{ text: "print(2)\n" }] }), otherUri);
    await client.request("textDocument/hover", { ...td, position: pos(5, 1) });
    expect(client.arrivals.slice(mark).filter((a: string) => a.includes("publishDiagnostics"))).toEqual([`textDocument/publishDiagnostics ${otherUri}`]);
    client.notify("textDocument/didClose", { textDocument: { uri: otherUri } });
  });

  it("hover: a variable, a function's signature, a builtin's doc, a do block's number", async () => {
    const h = async (line: number, ch: number) => (await client.request("textDocument/hover", { ...td, position: pos(line, ch) }))?.contents.value;
    expect(await h(3, 14)).toContain("(parameter) label: string");
    expect(await h(5, 1)).toContain("fun show(label: string)");
    expect(await h(12, 14)).toContain("the length of a string");
    expect(await h(1, 14)).toContain("fun square(n: number)");
    expect(await h(8, 5)).toContain("do block 0");
  });

  it("definition: local and across an import", async () => {
    const local = await client.request("textDocument/definition", { ...td, position: pos(3, 26) });
    expect(local).toEqual([{ uri, range: { start: pos(1, 4), end: pos(1, 9) } }]);
    const other = await client.request("textDocument/definition", { ...td, position: pos(1, 14) });
    expect(other).toEqual([{ uri: pathToFileURL(libPath).href, range: { start: pos(0, 11), end: pos(0, 17) } }]);
  });

  it("references and rename", async () => {
    const refs = await client.request("textDocument/references", { ...td, position: pos(1, 6), context: { includeDeclaration: true } });
    expect(refs.map((r: { range: { start: { line: number } } }) => r.range.start.line)).toEqual([1, 3, 7, 12]);
    const edit = await client.request("textDocument/rename", { ...td, position: pos(1, 6), newName: "sum" });
    expect(edit.changes[uri]).toHaveLength(4);
    // A builtin: refused with a message the editor shows.
    await expect(client.request("textDocument/rename", { ...td, position: pos(12, 14), newName: "x" })).rejects.toThrow("'len' is a builtin function: it cannot be renamed");
  });

  it("references and rename across files: the module, the open importer and a closed importer in the workspace", async () => {
    const libUri = pathToFileURL(libPath).href;
    const userUri = pathToFileURL(userPath).href;
    type Loc = { uri: string; range: { start: { line: number; character: number } } };
    const show = (l: Loc) => `${l.uri.slice(l.uri.lastIndexOf("/") + 1)}:${l.range.start.line}:${l.range.start.character}`;
    const refs: Loc[] = await client.request("textDocument/references", { ...td, position: pos(1, 14), context: { includeDeclaration: true } });
    expect(refs.map(show).sort()).toEqual(["lib.pw:0:11", "main.pw:0:8", "main.pw:1:12", "user.pw:0:8", "user.pw:1:6"]);
    const edit = await client.request("textDocument/rename", { ...td, position: pos(1, 14), newName: "sq" });
    expect(Object.keys(edit.changes).sort()).toEqual([libUri, uri, userUri].sort());
    expect(edit.changes[userUri]).toEqual([
      { range: { start: pos(0, 8), end: pos(0, 14) }, newText: "sq" },
      { range: { start: pos(1, 6), end: pos(1, 12) }, newText: "sq" },
    ]);
    const prepared = await client.request("textDocument/prepareRename", { ...td, position: pos(1, 14) });
    expect(prepared).toEqual({ start: pos(1, 12), end: pos(1, 18) });
    // A clash: main already declares `total`.
    await expect(client.request("textDocument/rename", { ...td, position: pos(1, 14), newName: "total" })).rejects.toThrow(
      "cannot rename 'square' to 'total': 'total' is already declared at main.pw:2:5",
    );
    await expect(client.request("textDocument/rename", { ...td, position: pos(1, 14), newName: "1x" })).rejects.toThrow("'1x' is not a valid name");
  });

  it("opening a large file does not hold up other requests: they are answered before its diagnostics", async () => {
    // ~10,000 lines of functions: parsed in steps, with other messages handled in between.
    const unit = (i: number) => `fun f${i}(a, b) {\n    var s = a + b\n    for x in [a, b] {\n        s = s + x * ${i}\n    }\n    return think {\n        Sum \${s} and \${a}.\n    }\n}\nprint(f${i}(1, 2))\n`;
    const big = Array.from({ length: 1000 }, (_, i) => unit(i)).join("");
    const bigUri = pathToFileURL(join(dir, "large.pw")).href;
    const beforeOpen = client.notifications.length;
    client.notify("textDocument/didOpen", { textDocument: { uri: bigUri, languageId: "patchwork", version: 1, text: big } });
    const hover = client.request("textDocument/hover", { ...td, position: pos(5, 1) });
    const id = client.lastId;
    expect((await hover).contents.value).toContain("fun show(label: string)");
    await client.waitFor((m: { method: string; params: { uri: string } }) => m.method === "textDocument/publishDiagnostics" && m.params.uri === bigUri, beforeOpen, 60_000);
    const order = client.arrivals.filter((a: string) => a === `response ${id}` || a === `textDocument/publishDiagnostics ${bigUri}`);
    expect(order).toEqual([`response ${id}`, `textDocument/publishDiagnostics ${bigUri}`]);
    // A request on the large file itself waits for its analysis, then answers.
    const symbols = await client.request("textDocument/documentSymbol", { textDocument: { uri: bigUri } });
    expect(symbols).toHaveLength(1000);
    // Formatting it runs on the formatter's thread: hovers sent one after another, each once the
    // previous one was answered, keep being answered while it runs (in place, at most the first
    // could be).
    let formatted = false;
    const formatting = client
      .request("textDocument/formatting", { textDocument: { uri: bigUri }, options: { tabSize: 4, insertSpaces: true } })
      .finally(() => (formatted = true));
    let answeredMeanwhile = 0;
    while (!formatted && answeredMeanwhile < 3) {
      expect((await client.request("textDocument/hover", { ...td, position: pos(5, 1) })).contents.value).toContain("fun show(label: string)");
      if (!formatted) answeredMeanwhile++;
    }
    expect(answeredMeanwhile).toBe(3);
    const edits = await formatting;
    const expected = format(big);
    expect(expected.ok).toBe(true);
    expect(edits.map((e: { newText: string }) => e.newText)).toEqual(expected.ok && expected.text !== big ? [expected.text] : []);
    client.notify("textDocument/didClose", { textDocument: { uri: bigUri } });
    // A newer version while the first is still being analysed: the stale work stops, only the
    // newest version's diagnostics are published.
    const since = client.notifications.length;
    client.notify("textDocument/didOpen", { textDocument: { uri: bigUri, languageId: "patchwork", version: 1, text: big } });
    client.notify("textDocument/didChange", { textDocument: { uri: bigUri, version: 2 }, contentChanges: [{ text: "print(nope)\n" }] });
    // (The clearing of the closed document has no version.)
    const d = await client.waitFor(
      (m: { method: string; params: { uri: string; version?: number } }) => m.method === "textDocument/publishDiagnostics" && m.params.uri === bigUri && m.params.version !== undefined,
      since,
      60_000,
    );
    expect(d.params.version).toBe(2);
    expect(d.params.diagnostics.map((x: { code: string }) => x.code)).toEqual(["PW5001"]);
    client.notify("textDocument/didClose", { textDocument: { uri: bigUri } });
  });

  it("completion: keywords, builtins, names in scope, inside ${…} in a prompt", async () => {
    const labels = async (line: number, ch: number) =>
      (await client.request("textDocument/completion", { ...td, position: pos(line, ch) })).map((i: { label: string }) => i.label);
    const inFn = await labels(3, 4);
    expect(inFn).toEqual(expect.arrayContaining(["label", "total", "show", "square", "print", "len", "while", "think"]));
    const inPrompt = await labels(7, 15);
    expect(inPrompt).toEqual(expect.arrayContaining(["total", "print"]));
    expect(inPrompt).not.toContain("while");
  });

  it("delegations: settle() and await completed and explained, outcomes never awaited warned about", async () => {
    const dUri = pathToFileURL(join(dir, "batch.pw")).href;
    const text = "worker w(n) { return n }\nself.delegate([w(1), w(2)]).settle()\nvar all = self.delegate([w(1)]).\n";
    const diags = await diagnosticsAfter(
      () => client.notify("textDocument/didOpen", { textDocument: { uri: dUri, languageId: "patchwork", version: 1, text } }),
      dUri,
    );
    expect(diags.find((d) => d.code === "PW5010")).toMatchObject({ severity: 2, range: { start: { line: 1, character: 0 } } });
    const items = await client.request("textDocument/completion", { textDocument: { uri: dUri }, position: pos(2, 32) });
    expect(items.map((i: { label: string }) => i.label)).toEqual(["settle", "await"]);
    expect(items[0].documentation).toContain("`{ok: true, value}` or `{ok: false, error}` per task");
    const h = await client.request("textDocument/hover", { textDocument: { uri: dUri }, position: pos(1, 30) });
    expect(h.contents.value).toContain("the tasks all run to their end");
    expect(h.range).toEqual({ start: pos(1, 28), end: pos(1, 34) });
    client.notify("textDocument/didClose", { textDocument: { uri: dUri } });
  });

  it("symbols, folding ranges, semantic tokens", async () => {
    const symbols = await client.request("textDocument/documentSymbol", td);
    expect(symbols.map((s: { name: string }) => s.name)).toEqual(["square", "total", "show", "reply"]);
    const folds = await client.request("textDocument/foldingRange", td);
    expect(folds).toEqual(expect.arrayContaining([{ startLine: 2, endLine: 4 }, { startLine: 6, endLine: 11 }]));
    const tokens = await client.request("textDocument/semanticTokens/full", td);
    expect(tokens.data.length % 5).toBe(0);
    expect(tokens.data.length).toBeGreaterThan(20);
  });

  it("formatting returns the formatter's text; a bare command gets a quick fix", async () => {
    const uri2 = pathToFileURL(join(dir, "messy.pw")).href;
    await diagnosticsAfter(() => client.notify("textDocument/didOpen", { textDocument: { uri: uri2, languageId: "patchwork", version: 1, text: "var x=1+2\nprint( x )\n" } }), uri2);
    const edits = await client.request("textDocument/formatting", { textDocument: { uri: uri2 }, options: { tabSize: 4, insertSpaces: true } });
    expect(edits).toHaveLength(1);
    expect(edits[0].newText).toBe("var x = 1 + 2\nprint(x)\n");
    const actions = await client.request("textDocument/codeAction", {
      textDocument: { uri: uri2 },
      range: { start: pos(0, 0), end: pos(0, 0) },
      context: { diagnostics: [{ range: { start: pos(1, 0), end: pos(1, 4) }, message: "a bare command: write `$ echo hi`", code: "PW2009" }] },
    });
    expect(actions[0].edit.changes[uri2]).toEqual([{ range: { start: pos(1, 0), end: pos(1, 0) }, newText: "$ " }]);
  });

  it("survives bad input: closed documents, out-of-range positions, random bytes, 10,000 ${, an import cycle", async () => {
    const closed = { textDocument: { uri: "file:///nowhere/closed.pw" } };
    expect(await client.request("textDocument/hover", { ...closed, position: pos(0, 0) })).toBeNull();
    expect(await client.request("textDocument/definition", { ...closed, position: pos(0, 0) })).toEqual([]);
    expect(await client.request("textDocument/hover", { ...td, position: pos(9999, 9999) })).toBeNull();
    expect(await client.request("textDocument/completion", { ...td, position: pos(-1, 5) })).toEqual(expect.any(Array));
    expect(await client.request("textDocument/references", { ...closed, position: pos(0, 0), context: { includeDeclaration: true } })).toEqual([]);
    expect(await client.request("textDocument/rename", { ...closed, position: pos(0, 0), newName: "x" })).toBeNull();
    expect(await client.request("textDocument/references", { ...td, position: pos(9999, 9999), context: { includeDeclaration: true } })).toEqual([]);
    await expect(client.request("textDocument/rename", { ...td, position: pos(9999, 9999), newName: "x" })).rejects.toThrow("there is no name here to rename");
    const junk = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)).toString("latin1");
    const junkUri = pathToFileURL(join(dir, "junk.pw")).href;
    const d1 = await diagnosticsAfter(() => client.notify("textDocument/didOpen", { textDocument: { uri: junkUri, languageId: "patchwork", version: 1, text: junk } }), junkUri);
    expect(d1.length).toBeGreaterThan(0);
    for (const line of [0, 5, 20]) {
      const position = pos(line, 3);
      expect(await client.request("textDocument/references", { textDocument: { uri: junkUri }, position, context: { includeDeclaration: true } })).toEqual(expect.any(Array));
      await client.request("textDocument/rename", { textDocument: { uri: junkUri }, position, newName: "x" }).catch((e: Error) => expect(e.message).toMatch(/rename|declared|builtin/));
      expect(await client.request("textDocument/completion", { textDocument: { uri: junkUri }, position })).toEqual(expect.any(Array));
    }
    const dollars = "var t = think {\n" + "${".repeat(10_000) + "\n}\n";
    const dUri = pathToFileURL(join(dir, "dollars.pw")).href;
    const d2 = await diagnosticsAfter(() => client.notify("textDocument/didOpen", { textDocument: { uri: dUri, languageId: "patchwork", version: 1, text: dollars } }), dUri);
    expect(d2.length).toBeGreaterThan(0);
    expect(await client.request("textDocument/completion", { textDocument: { uri: dUri }, position: pos(1, 20_000) })).toEqual(expect.any(Array));
    expect(await client.request("textDocument/completion", { textDocument: { uri: dUri }, position: pos(1, 9_000) })).toEqual(expect.any(Array));
    expect(await client.request("textDocument/semanticTokens/full", { textDocument: { uri: dUri } })).toEqual({ data: expect.any(Array) });
    writeFileSync(join(dir, "a.pw"), "import ./{b}\nexport fun fa() { return b.fb() }\n");
    writeFileSync(join(dir, "b.pw"), "import ./{a}\nexport fun fb() { return 1 }\n");
    const aUri = pathToFileURL(join(dir, "a.pw")).href;
    const d3 = await diagnosticsAfter(() => client.notify("textDocument/didOpen", { textDocument: { uri: aUri, languageId: "patchwork", version: 1, text: "import ./{b}\nexport fun fa() { return b.fb() }\n" } }), aUri);
    expect(d3).toEqual([]);
    // A 5 MB file: not analysed live, said so at once; other requests still answer quickly.
    const bigUri = pathToFileURL(join(dir, "big.pw")).href;
    const big = "print(1)\n".repeat(560_000);
    const d4 = await diagnosticsAfter(() => client.notify("textDocument/didOpen", { textDocument: { uri: bigUri, languageId: "patchwork", version: 1, text: big } }), bigUri);
    expect(d4[0].message).toMatch(/too large for live analysis \(5\.0 MB/);
    // Still answering.
    expect(await client.request("textDocument/hover", { ...td, position: pos(5, 1) })).not.toBeNull();
  });
});
