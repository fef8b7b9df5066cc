// The reference's book snippets and example programs (packages/parser/test/fixtures/reference,
// copied as facts, source named) run here in no-agent mode: every one that can run without an
// agent, in a temporary folder holding the files it reads. The others are listed with the
// reason they cannot run, checked too.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runSource, tempDir } from "./helpers.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "parser", "test", "fixtures", "reference");

interface Case {
  /** Files to create in the working folder first. */
  files?: Record<string, string>;
  entry?: string;
  check: (r: ReturnType<typeof runSource>) => void;
}

function runFixture(path: string, c: Case): ReturnType<typeof runSource> {
  const cwd = tempDir();
  for (const [name, text] of Object.entries(c.files ?? {})) {
    mkdirSync(dirname(join(cwd, name)), { recursive: true });
    writeFileSync(join(cwd, name), text);
  }
  const file = join(root, path);
  return runSource(readFileSync(file, "utf8"), { cwd, fileName: file, ...(c.entry ? { entry: c.entry } : {}) });
}

const prompt = (v: unknown) => (v as { __think_prompt: string }).__think_prompt;

const runnable: Record<string, Case> = {
  "book/arch-runtime.pw": { check: (r) => expect(r.output).toBe("2\n1\n") },
  "book/arch-example-1.pw": {
    entry: "code_review_assistant",
    files: { "src/auth/login.rs": "fn login() {}\n", "src/auth/notes.txt": "todo\n" },
    check: (r) => {
      // `$ls -1 src/auth/` gives the lines; only the .rs file is reviewed.
      expect(prompt(r.value)).toContain("Relevant files in src/auth/:\nlogin.rs\nnotes.txt\n\nPlease identify:");
      expect(r.output.startsWith("login.rs: ")).toBe(true);
      expect(prompt(JSON.parse(r.output.slice("login.rs: ".length)))).toBe("Review this file for OAuth readiness:\nfn login() {}\n");
    },
  },
  "book/manual-introduction.pw": {
    files: { "src/main.rs": "", "src/lib.rs": "" },
    check: (r) => {
      const p = prompt(JSON.parse(r.output));
      expect(p).toMatch(/^The user wants to: Review this code for security issues\n\nReview these files for common security vulnerabilities:\nsrc\/(main|lib)\.rs\nsrc\/(main|lib)\.rs$/);
    },
  },
  "book/arch-introduction.pw": { entry: "analyze_document", check: (r) => expect(r.output).toBe("") },
  "book/arch-values-1.pw": { files: { "config.json": '{"a": [1, 2]}' }, check: (r) => expect(r.output).toBe("") },
  "book/arch-values-2.pw": { files: { "data.json": '[{"name": "a"}, {"name": "b"}]' }, check: (r) => expect(r.output).toBe("a\nb\n") },
  "book/acp-design-2.pw": { check: (r) => expect(r.output).toBe("") },
  "book/acp-design-3.pw": { check: (r) => expect(r.output).toBe("") },
  "book/acp-design-4.pw": { check: (r) => expect(r.output).toBe("") },
  "examples/examples/test-multifile/main.pw": { check: (r) => expect(r.value).toBe("Helper: Hello from main") },
  "examples/test/shell-commands.pw": { entry: "example", check: (r) => expect(r.output).toBe("x is big\n") },
  "examples/test/simple.pw": { entry: "example", check: (r) => expect(r.output).toBe("") },
  "examples/tests/integration/greeter/source.pw": {
    entry: "greeter_worker",
    check: (r) => {
      expect(r.output).toBe("Preparing greeting for null...\n");
    },
  },
  "examples/examples/interview-demo/sanitize.pw": {
    files: {
      "i1/metadata.json": '{"interviewees": ["John Smith", "Alice Johnson"], "interviewer": "Jane Doe", "date": "2024-03-15", "url": "u"}',
      "i1/transcript.txt": "um, so, Rust\n",
    },
    check: (r) => {
      expect(r.output).toBe("Processed ./i1\n\n\nDone\n\n\n");
      const written = prompt(JSON.parse(readFileSync(join(r.cwd, "i1", "sanitized.txt"), "utf8")));
      expect(written).toContain("The interviewer is Jane Doe\nand the interviewees are John Smith, Alice Johnson.\n\n<transcript>\num, so, Rust\n\n</transcript>");
    },
  },
};

/** Snippets that cannot run as written, and the runtime error that says why. */
const notRunnable: Record<string, RegExp> = {
  // They use a variable the snippet never defines.
  "book/arch-think-blocks.pw": /^PW3002 at 5:7: .*'files'/,
  "book/arch-example-2.pw": /^PW3002 at 3:26: .*'task'/,
  "book/acp-design-5.pw": /^PW3002 at 2:22: .*'interviews'/,
  "book/acp-design-6.pw": /^PW3002 at 3:26: .*'interviews'/,
  // `json < "…"` compares the builtin with a string (the book's wished-for redirect).
  "book/acp-design-1.pw": /^PW3005 at 4:52: operator '<' cannot be applied to a function and a string/,
};

/** Programs that use `self` (workers, sessions, mailboxes): they run once this interpreter has them. */
const needsWorkers: Record<string, string> = {
  "examples/examples/cat-test.pw": "test_worker",
  "examples/examples/session-demo.pw": "session_demo",
  "examples/examples/mailbox-demo.pw": "multi_message_demo",
  "examples/examples/phase5-message-demo.pw": "multi_message_demo",
  "examples/tests/integration/interpolation-test/source.pw": "test_interpolation",
  "examples/tests/integration/delegation-test/source.pw": "coordinator",
};
// Not run at all: examples/historian/*.pw as written (a design sketch: shell commands without
// `$`, `await task a(), b()`; parse errors, see the parser's reference.test.ts). Its port to the
// language is our examples/historian/, run end to end against a git repository with scripted
// answers by packages/cli/test/historian.test.ts. Nor tests/integration/mailbox-test (its only
// entry is the trait method MailboxTest.test; its workers take arguments it passes): its port
// is examples/workers/mailbox.pw, run by packages/cli/test/workers.test.ts.

describe("the reference's programs in no-agent mode", () => {
  for (const [path, c] of Object.entries(runnable)) {
    it(`${path} runs`, () => {
      const r = runFixture(path, c);
      expect(r.error).toBeNull();
      c.check(r);
    });
  }

  for (const [path, error] of Object.entries(notRunnable)) {
    it(`${path} cannot run as written: ${error.source}`, () => {
      const files = { "i1/metadata.json": "{}" };
      expect(runFixture(path, { files, check: () => {} }).error).toMatch(error);
    });
  }

  for (const [path, entry] of Object.entries(needsWorkers)) {
    it(`${path} (${entry}) runs, or stops at its first actor feature (self, await) as not supported (PW3060)`, () => {
      const r = runFixture(path, { entry, check: () => {} });
      if (r.error !== null) expect(r.error).toMatch(/^PW3060 at \d+:\d+: '(self|await)' \(actor features\) is not supported/);
    });
  }
});
