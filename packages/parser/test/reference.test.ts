// The reference implementation's Patchwork as users will copy it (language.md, issue 14):
// every snippet of its books (architecture book, manual, ACP design document) and every
// program of its examples, copied as facts into fixtures/reference/ with their source named
// on their first line. The book snippets all parse; the examples parse except where they
// write shell commands without `$`, which language.md makes an error (PW2008) — reported
// on exactly those lines, with the `$ ` form as the hint.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "reference");

function files(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith(".pw") ? [join(dir, f)] : []))
    .sort();
}

const at = (d: { code: string; span: { start: { line: number; column: number } } }) => `${d.code}@${d.span.start.line}:${d.span.start.column}`;

describe("the reference's book snippets", () => {
  const snippets = files(join(root, "book"));
  it("are all here: 14 snippets, each naming its source", () => {
    expect(snippets.length).toBe(14);
    for (const f of snippets) expect(readFileSync(f, "utf8")).toMatch(/^# From patchwork-lang\/patchwork docs\/\S+\.md at commit [0-9a-f]{7} /);
  });
  for (const f of snippets) {
    it(`${relative(root, f)} parses without a diagnostic`, () => {
      const { diagnostics } = parse(readFileSync(f, "utf8"), { fileName: f });
      expect(diagnostics.map(at)).toEqual([]);
    });
  }
});

/** Corpus files that parse with no error (their warnings listed). */
const clean: Record<string, string[]> = {
  "examples/cat-test.pw": [],
  "examples/historian/historian.pw": [],
  "examples/interview-demo/sanitize.pw": [],
  "examples/mailbox-demo.pw": [],
  "examples/phase5-message-demo.pw": [],
  "examples/session-demo.pw": [],
  "examples/test-multifile/helper.pw": [],
  "examples/test-multifile/main.pw": [],
  "test/shell-commands.pw": [],
  "test/simple.pw": [],
  "tests/integration/delegation-test/source.pw": [],
  "tests/integration/greeter/source.pw": [],
  "tests/integration/interpolation-test/source.pw": [],
  // `if msg.type = "done" {`: compares, with a warning.
  "tests/integration/mailbox-test/source.pw": ["PW2002@33:12"],
};

/** The other errors of the historian files, besides their `$`-less shell commands. */
const otherErrors: Record<string, string[]> = {
  // `if ! git diff_index … {`: a shell command without `$` in a condition.
  "examples/historian/analyst.pw": ["PW2001@19:14"],
  // `await task analyst(…), narrator(…), …`: no such form (workers run through self.delegate).
  "examples/historian/main.pw": ["PW2001@26:11"],
  // `if $clean_tree = $original_tree {`: `$cmd` runs to the end of the line, `{` included.
  "examples/historian/narrator.pw": ["PW2001@85:37"],
  "examples/historian/scribe.pw": [],
};

/** Lines that look like commands but are not checked: prompt text, or inside a statement recovery skipped. */
const notStatements: Record<string, number[]> = {
  // Inside the block of the `if` on line 19, which fails to parse and is skipped whole.
  "examples/historian/analyst.pw": [20],
  // Prompt text (in a `{ … }` of the prompt that is not a `do` block).
  "examples/historian/scribe.pw": [104],
};

describe("the reference's example programs", () => {
  const corpus = files(join(root, "examples")).map((f) => relative(join(root, "examples"), f));
  it("are all here, each naming its source", () => {
    expect(corpus).toEqual(Object.keys({ ...clean, ...otherErrors }).sort());
    for (const f of corpus) expect(readFileSync(join(root, "examples", f), "utf8").startsWith(`# From patchwork-lang/patchwork ${f} at commit `)).toBe(true);
  });

  for (const [f, warnings] of Object.entries(clean)) {
    it(`${f} parses with no error`, () => {
      const { diagnostics } = parse(readFileSync(join(root, "examples", f), "utf8"));
      expect(diagnostics.map(at)).toEqual(warnings);
    });
  }

  for (const [f, others] of Object.entries(otherErrors)) {
    it(`${f}: each shell command written without '$' is PW2008 suggesting the '$ ' form`, () => {
      const source = readFileSync(join(root, "examples", f), "utf8");
      const commands: string[] = [];
      source.split("\n").forEach((line, i) => {
        const m = /^(\s*)(mkdir|echo|git|eval) /.exec(line);
        if (m && !(notStatements[f] ?? []).includes(i + 1)) commands.push(`PW2008@${i + 1}:${m[1]!.length + 1}`);
      });
      expect(commands.length).toBeGreaterThan(0);
      const { diagnostics } = parse(source);
      const errors = diagnostics.filter((d) => d.severity === "error");
      expect(errors.filter((d) => d.code === "PW2008").map(at)).toEqual(commands);
      expect(errors.filter((d) => d.code !== "PW2008").map(at)).toEqual(others);
      for (const d of errors.filter((e) => e.code === "PW2008")) {
        const line = source.split("\n")[d.span.start.line - 1]!.trim();
        expect(d.message).toContain(`\`$ ${line.length > 60 ? line.slice(0, 60) + "…" : line}\``);
      }
    });
  }
});
