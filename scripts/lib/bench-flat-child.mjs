// The child of bench-hostile.mjs: parses and runs a flat program (argv[2]), prints its times and memory as JSON.
import { readFileSync } from "node:fs";
import { parse } from "@patchwork/parser";
import { runParsed } from "@patchwork/interpreter";
const src = readFileSync(process.argv[2], "utf8");
let t = performance.now();
const r = parse(src, { fileName: "flat.pw" });
const parseMs = performance.now() - t;
const heapAfterParse = process.memoryUsage().heapUsed;
t = performance.now();
const res = runParsed(r.program, r.diagnostics, { fileName: "flat.pw", source: src }, () => ({ program: null, error: "no imports" }));
const runMs = performance.now() - t;
console.log(JSON.stringify({ ok: res.ok && res.output.trim() === process.argv[3], parseMs, runMs, heapAfterParse, rss: process.memoryUsage().rss, maxRss: process.resourceUsage().maxRSS * 1024 }));
