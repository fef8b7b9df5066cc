#!/usr/bin/env node
// Parser throughput: a generated ≥ 1 MB Patchwork program (items, statements, prompts,
// strings, shell lines) against acorn on a generated JavaScript file of the same size.
// Run with `npm run bench:parse` (builds first).
import { parse } from "@patchwork/parser";
import * as acorn from "acorn";
import { median, size, smoke } from "./lib/bench.mjs";

const TARGET = size(1.2 * 1024 * 1024, 40 * 1024);

function patchworkUnit(i) {
  return `# unit ${i}
@model "fast"
fun process_${i}(items: [string], limit: number): {name: string, count: number} {
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
    Keep it {short}, and call the tool if needed:
    do {
      $ ls -la "$dir" | grep -v tmp > out_${i}.txt 2>&1
      print("listed")
    }
  }
  var files = $(git ls-files | head -n ${i % 50})
  try {
    var data = json(read("data_${i}.json"))
    print(data.value[0].name, cat({k: ${i}, v: "x"}))
  } catch e {
    log("failed: " + e.message)
  }
  return {name: "unit_${i}", count: total % 7}
}

var result_${i} = process_${i}(["a", "bb", "ccc"], ${i})
$ echo "done ${i}" && date
`;
}

function javascriptUnit(i) {
  return `// unit ${i}
function process_${i}(items, limit) {
  let total = 0;
  const names = [];
  for (const item of items) {
    if (item.length > limit && !item.startsWith("#")) {
      total = total + item.length * 2 - 1;
      names.push(\`item: \${item} (\${total})\`);
    } else if (item === "") {
      continue;
    } else {
      total++;
    }
  }
  while (total > 100) { total = total / 2; }
  const summary = think(\`Summarise these \${total} items for the report on \${names.length} names:
    \${names.join(", ")}
    Keep it {short}, and call the tool if needed\`, [() => { sh("ls -la " + dir + " | grep -v tmp > out_${i}.txt 2>&1"); print("listed"); }]);
  const files = sh("git ls-files | head -n ${i % 50}");
  try {
    const data = JSON.parse(read("data_${i}.json"));
    print(data.value[0].name, cat({ k: ${i}, v: "x" }));
  } catch (e) {
    log("failed: " + e.message);
  }
  return { name: "unit_${i}", count: total % 7 };
}

const result_${i} = process_${i}(["a", "bb", "ccc"], ${i});
sh("echo 'done ${i}' && date");
`;
}

function generate(unit) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < TARGET; i++) {
    const u = unit(i);
    parts.push(u);
    size += u.length;
  }
  return parts.join("\n");
}

/**
 * Median time of `runs` runs of each parser, interleaved (A, B, A, B, …) so that changes in
 * machine load hit both alike; three warm-up runs each first.
 */
function measure(cases, runs = size(9, 3)) {
  for (const c of cases) for (let i = 0; i < size(3, 1); i++) c.fn(c.text);
  const times = cases.map(() => []);
  for (let i = 0; i < runs; i++) {
    cases.forEach((c, k) => {
      const t0 = performance.now();
      c.fn(c.text);
      times[k].push(performance.now() - t0);
    });
  }
  return cases.map((c, k) => {
    const m = median(times[k]);
    const mb = c.text.length / 1024 / 1024;
    console.log(`${c.name.padEnd(10)} ${mb.toFixed(2)} MB  median ${m.toFixed(1)} ms  ${(mb / (m / 1000)).toFixed(1)} MB/s`);
    return m;
  });
}

if (smoke) console.log("smoke size: figures not meaningful");
const pw = generate(patchworkUnit);
const js = generate(javascriptUnit);
// `--write DIR`: also save the generated programs (for profiling).
const writeAt = process.argv.indexOf("--write");
if (writeAt > 0) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(`${process.argv[writeAt + 1]}/bench.pw`, pw);
  writeFileSync(`${process.argv[writeAt + 1]}/bench.js`, js);
}
const check = parse(pw);
const errors = check.diagnostics.filter((d) => d.severity === "error");
if (errors.length > 0) {
  console.error("benchmark program has errors:", errors.slice(0, 3));
  process.exit(1);
}
acorn.parse(js, { ecmaVersion: "latest", locations: true });

const [tPw, tJs] = measure([
  { name: "patchwork", text: pw, fn: (t) => parse(t) },
  { name: "acorn", text: js, fn: (t) => acorn.parse(t, { ecmaVersion: "latest", locations: true }) },
]);
console.log(`ratio      patchwork takes ${(tPw / tJs).toFixed(2)}× acorn's time (goal ≤ 3×)`);
