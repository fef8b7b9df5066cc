// The manual cannot drift from the implementation (issue 14): every ```patchwork block in
// README.md and docs/ is parsed, and every one followed by an ```output block is run (no
// agent, or the scripted agent of an ```agent block) and its output compared exactly.
// The conventions are documented in docs/manual/README.md ("Examples are tested").
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { format, formatDiagnostic, parse, SourceFile, type Diagnostic } from "@patchwork/parser";
import { createNodeHost, run, ScriptedAgent, type ScriptStep } from "@patchwork/interpreter";

const root = join(import.meta.dirname, "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? markdownFiles(p) : f.endsWith(".md") ? [p] : [];
    })
    .sort();
}

interface Fence {
  info: string;
  body: string;
  line: number;
}

/** The fenced code blocks of a markdown text (``` or longer fences, not indented more than 3). */
export function fences(text: string): Fence[] {
  const out: Fence[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const ticks = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^ {0,3}${ticks}\\s*$`).test(lines[j]!)) body.push(lines[j++]!);
    out.push({ info: open[2]!.trim(), body: body.join("\n") + (body.length ? "\n" : ""), line: i + 1 });
    i = j;
  }
  return out;
}

/** The scripted test agent's script format (packages/agent/README.md): the steps used here. */
interface AgentScript {
  prompts: { match?: string; steps: ({ text: string } | { do: number } | { reply: string })[] }[];
}

/**
 * The in-thread scripted agent playing a test-agent script: the entry whose `match` is in the
 * prompt (entries without one are used once, in order); `text` steps are preambles, not answers.
 */
function scriptedAgent(script: AgentScript): ScriptedAgent {
  const unmatched = script.prompts.filter((p) => p.match === undefined);
  return new ScriptedAgent((request) => {
    const entry = script.prompts.find((p) => p.match !== undefined && request.prompt.includes(p.match)) ?? unmatched.shift();
    if (!entry) throw new Error(`no script entry for the prompt ${JSON.stringify(request.prompt.slice(0, 80))}`);
    return entry.steps.flatMap((s): ScriptStep[] => ("do" in s ? [{ do: s.do }] : "reply" in s ? [{ reply: s.reply }] : []));
  });
}

interface Example {
  file: string;
  line: number;
  /** Fenced ```patchwork unformatted: it shows a layout `patchwork fmt` rewrites (continuation lines, `if a = b`). */
  unformatted: boolean;
  source: string;
  /** Files to create first (```file NAME blocks before it). */
  files: Record<string, string>;
  /** The test agent's script (an ```agent block before it), or none: no agent. */
  agent: AgentScript | null;
  /** The expected output (the ```output block after it), or null: parse only. */
  output: string | null;
}

function examples(file: string): Example[] {
  const out: Example[] = [];
  const fs = fences(readFileSync(file, "utf8"));
  let files: Record<string, string> = {};
  let agent: AgentScript | null = null;
  for (let i = 0; i < fs.length; i++) {
    const f = fs[i]!;
    const word = f.info.split(/\s+/)[0];
    if (word === "file") files[f.info.split(/\s+/)[1]!] = f.body;
    else if (word === "agent") agent = JSON.parse(f.body) as AgentScript;
    else if (word === "patchwork") {
      const next = fs[i + 1];
      const output = next?.info === "output" ? next.body : null;
      out.push({ file, line: f.line, unformatted: f.info.split(/\s+/).includes("unformatted"), source: f.body, files, agent, output });
      files = {};
      agent = null;
      if (output !== null) i++;
    }
  }
  return out;
}

const docs = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))];
const all = docs.flatMap(examples);
const work = mkdtempSync(join(tmpdir(), "pw-docs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What `patchwork run example.pw` shows: warnings, the program's output, then its error. */
function runExample(ex: Example, n: number): string {
  const dir = join(work, String(n));
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(ex.files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const fileName = join(dir, "example.pw");
  writeFileSync(fileName, ex.source);
  const host = createNodeHost({ cwd: dir, stdout: () => {}, stderr: () => {} });
  const agent = ex.agent ? scriptedAgent(ex.agent) : undefined;
  const r = run(ex.source, { fileName, cwd: dir, host, ...(agent ? { agent } : {}) });
  const show = (d: Diagnostic) => {
    const name = d.fileName ? relative(dir, d.fileName) : "example.pw";
    const text = name === "example.pw" ? ex.source : existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : undefined;
    return formatDiagnostic({ ...d, fileName: name }, text === undefined ? undefined : new SourceFile(text, name)) + "\n";
  };
  const warnings = r.diagnostics.filter((d) => d.severity === "warning").map(show).join("");
  const errors = r.diagnostics.filter((d) => d.severity === "error").map(show).join("");
  return warnings + r.output + errors;
}

describe("every ```patchwork block in README.md and docs/", () => {
  it("there are examples, and the manual's are all tested by running", () => {
    const manual = all.filter((e) => e.file.includes(join("docs", "manual")));
    expect(manual.length).toBeGreaterThanOrEqual(30);
    expect(manual.filter((e) => e.output !== null).length).toBeGreaterThanOrEqual(30);
  });

  all.forEach((ex, n) => {
    const where = `${relative(root, ex.file)}:${ex.line}`;
    if (ex.output === null) {
      it(`${where} parses`, () => {
        const { diagnostics } = parse(ex.source, { fileName: "example.pw" });
        const src = new SourceFile(ex.source, "example.pw");
        expect(diagnostics.filter((d) => d.severity === "error").map((d) => formatDiagnostic(d, src))).toEqual([]);
      });
    } else {
      it(`${where} prints what its output block shows`, () => {
        expect(runExample(ex, n)).toBe(ex.output);
      });
    }
  });
});

describe("the examples are in the layout `patchwork fmt` gives (issue 23)", () => {
  const checked = all.filter((ex) => !ex.unformatted && format(ex.source).ok);
  it("nearly all of them are checked (only blocks with syntax errors or marked unformatted are not)", () => {
    expect(checked.length).toBeGreaterThanOrEqual(all.length - 8);
  });
  checked.forEach((ex) => {
    it(`${relative(root, ex.file)}:${ex.line} is formatted`, () => {
      const r = format(ex.source);
      expect(r.ok && r.text).toBe(ex.source);
    });
  });
  it("a short body written on one line stays on one line, as the manual writes it", () => {
    const src = "fun fib(n) {\n    if n < 2 { return n }\n    return fib(n - 1) + fib(n - 2)\n}\n";
    const r = format(src);
    expect(r.ok && r.text).toBe(src);
  });
});

describe("the manual's links", () => {
  const pages = [join(root, "README.md"), ...markdownFiles(join(root, "docs", "manual"))];
  it("every relative link of the manual and README.md points at a file that exists", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const m of readFileSync(page, "utf8").matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(resolve(dirname(page), target))) broken.push(`${relative(root, page)}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("README's quick start links to the tutorial; the manual links the syntax diagrams", () => {
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain("(docs/manual/tutorial.md)");
    expect(readFileSync(join(root, "docs", "manual", "README.md"), "utf8")).toContain("(../../grammar/diagrams.generated.html)");
  });
});
