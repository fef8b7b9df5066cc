#!/usr/bin/env node
// Keystroke-to-diagnostics time of the language server on a 10,000-line file:
//  1. in process: AnalysisDocument.edit + diagnostics() (the work a keystroke costs), CPU time;
//  2. end to end: `patchwork lsp` as a child process, a didChange sent, wall time until the
//     publishDiagnostics of that version arrives;
//  and, for comparison, a full `checkSource` of the file (what a non-incremental server redoes).
// Run with `npm run bench:lsp` (builds first); `--smoke` runs it on a small file.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AnalysisDocument, CachingResolver, checkSource, prepareQueries, semanticTokens } from "@patchwork/analysis";
import { LspClient } from "./lib/lsp-client.mjs";
import { median, size } from "./lib/bench.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const LINES = size(10_000, 400);
const KEYSTROKES = size(200, 20);
// How long one wait for the server's diagnostics may take: a hang fails in seconds at smoke size.
const WAIT_MS = size(60_000, 15_000);

function unit(i) {
  return `# unit ${i}
fun process_${i}(items: [string], limit: number) {
    var total = 0
    var names = []
    for var item in items {
        if item.length > limit && !item.startsWith("#") {
            total = total + item.length * 2 - 1
            names.push("item: \${item} ($total)")
        } else if item == "" {
            continue
        } else {
            total++
        }
    }
    while (total > 100) { total = total / 2 }
    var summary = think {
        Summarise these $total items for the report on \${names.length} names:
        $@{names}
        do {
            $ ls -la | grep -v tmp > out_${i}.txt 2>&1
            print("listed")
        }
    }
    try {
        var data = json(read("data_${i}.json"))
        print(data.value[0].name, cat({k: ${i}, v: summary}))
    } catch e {
        log("failed: " + e.message)
    }
    return {name: "unit_${i}", count: total % 7}
}

var result_${i} = process_${i}(["a", "bb", "ccc"], ${i})
$ echo "done ${i}" && date
`;
}

let text = "";
for (let i = 0; text.split("\n").length < LINES; i++) text += unit(i);
const lines = text.split("\n").length;
// Keystrokes land in the middle of the file, inside a function body: a name is typed, then deleted.
const at = text.indexOf("var total = 0", text.length >> 1) + "var total".length;
const keys = [];
for (let k = 0; k < KEYSTROKES; k++) keys.push(k % 2 === 0 ? { start: at, end: at, text: "x" } : { start: at, end: at + 1, text: "" });

const cpu = (f) => {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

const full = [];
for (let i = 0; i < 5; i++) full.push(cpu(() => checkSource(text, { fileName: "/tmp/bench.pw", resolver: new CachingResolver() })));

let doc;
const open = cpu(() => {
  doc = new AnalysisDocument(text, { fileName: "/tmp/bench.pw", resolver: new CachingResolver() });
  doc.diagnostics();
});
// Opening as the server does: parsed in steps, pausing (setImmediate) every 8 ms of work; the
// longest stretch without a pause is how long another request may wait.
let pauses = 0;
let longest = 0;
let last = performance.now();
const control = {
  pause: () => {
    pauses++;
    longest = Math.max(longest, performance.now() - last);
    return new Promise((r) => setImmediate(() => ((last = performance.now()), r())));
  },
};
const stepped = await AnalysisDocument.build(text, { fileName: "/tmp/bench.pw", resolver: new CachingResolver() }, control);
await prepareQueries(stepped, control);
longest = Math.max(longest, performance.now() - last);
const firstDiagnostics = cpu(() => stepped.diagnostics());
const tokensFirst = cpu(() => semanticTokens(stepped));
const inproc = [];
semanticTokens(doc);
const tokens = [];
for (const k of keys) {
  inproc.push(cpu(() => (doc.edit(k.start, k.end, k.text), doc.diagnostics())));
  // The editor asks for semantic tokens after every change too.
  tokens.push(cpu(() => semanticTokens(doc)));
}

const client = new LspClient(process.execPath, [join(root, "packages/cli/bin/patchwork.js"), "lsp"]);
await client.initialize();
const uri = pathToFileURL("/tmp/bench-lsp.pw").href;
const td = { uri, text, version: 1 };
// A small document open first: a hover on it sent right after the big file's didOpen must not
// wait for the big file's analysis.
const small = pathToFileURL("/tmp/bench-lsp-small.pw").href;
const beforeSmall = client.notifications.length;
client.notify("textDocument/didOpen", { textDocument: { uri: small, languageId: "patchwork", version: 1, text: "fun f(a) { return a }\nprint(f(1))\n" } });
await client.waitFor((n) => n.method === "textDocument/publishDiagnostics" && n.params.uri === small, beforeSmall, WAIT_MS);
// The diagnostics may arrive before the hover's answer: count from before the didOpen.
const beforeOpen = client.notifications.length;
const tOpen = performance.now();
client.notify("textDocument/didOpen", { textDocument: { uri, languageId: "patchwork", version: 1, text } });
const hovered = client.request("textDocument/hover", { textDocument: { uri: small }, position: { line: 1, character: 7 } });
const hoverId = client.lastId;
await hovered;
const hoverWall = performance.now() - tOpen;
await client.waitFor((n) => n.method === "textDocument/publishDiagnostics" && n.params.uri === uri && n.params.version === 1, beforeOpen, 2 * WAIT_MS);
const openWall = performance.now() - tOpen;
const hoverFirst = client.arrivals.indexOf(`response ${hoverId}`) < client.arrivals.indexOf(`textDocument/publishDiagnostics ${uri}`);
const lineOf = (o) => text.slice(0, o).split("\n").length - 1;
const colOf = (o) => o - (text.lastIndexOf("\n", o - 1) + 1);
const e2e = [];
for (const k of keys) {
  td.version++;
  const range = { start: { line: lineOf(k.start), character: colOf(k.start) }, end: { line: lineOf(k.end), character: colOf(k.end) } };
  const since = client.notifications.length;
  const t0 = performance.now();
  client.notify("textDocument/didChange", { textDocument: { uri, version: td.version }, contentChanges: [{ range, text: k.text }] });
  await client.waitFor((n) => n.method === "textDocument/publishDiagnostics" && n.params.version === td.version, since, WAIT_MS);
  e2e.push(performance.now() - t0);
}
await client.shutdown();

const f = (x) => x.toFixed(1);
console.log(`file: ${lines} lines, ${(text.length / 1024).toFixed(0)} KB; ${KEYSTROKES} keystrokes`);
console.log(`full check (parse + analysis, no reuse): median ${f(median(full))} ms CPU`);
console.log(`open (chunked parse + first diagnostics): ${f(open)} ms CPU`);
console.log(`open in steps (as the server: parse, then folds and token structure): ${pauses} pauses, longest step ${f(longest)} ms wall; then first diagnostics ${f(firstDiagnostics)} ms CPU`);
console.log(`keystroke in process (edit + diagnostics): median ${f(median(inproc))} ms, p95 ${f(p95(inproc))} ms CPU`);
console.log(`semantic tokens: first (after the stepped open) ${f(tokensFirst)} ms CPU; after a keystroke median ${f(median(tokens))} ms, p95 ${f(p95(tokens))} ms CPU`);
console.log(`over stdio: didOpen of the file to its diagnostics ${f(openWall)} ms wall; a hover on another document sent right after it answered in ${f(hoverWall)} ms wall, ${hoverFirst ? "before" : "AFTER"} the file's diagnostics`);
console.log(`keystroke to publishDiagnostics over stdio: median ${f(median(e2e))} ms, p95 ${f(p95(e2e))} ms wall`);
