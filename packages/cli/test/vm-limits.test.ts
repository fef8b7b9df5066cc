// Inputs that used to abort Node (a V8 fatal error, exit 133, a C++ stack on stderr) end as one
// positioned PW3073 diagnostic through the real CLI, with the default limits, with and
// without an agent (the evaluator then runs on a worker thread).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

/** Only the diagnostic: no engine or JS stack, no "Fatal", no internal error. */
function expectDiagnostic(stderr: string, code: string, at: string): void {
  expect(stderr).toMatch(new RegExp(`^[^\\n]*p\\.pw:${at}: error\\[${code}\\]: `));
  expect(stderr).not.toMatch(/Fatal|Native stack|^\s+at |node:internal|RangeError|PW3099/m);
}

const CASES: [string, string, string][] = [
  ["an index far past the end", "var x = []\nx[1000000000] = 1\n", "2:1"],
  ["a huge range made into an array", "var r = 0...1000000000\nprint(len(r))\n", "1:9"],
  ["a huge repeat", 'print("x".repeat(1e9))\n', "1:7"],
  ["a huge padStart", 'print("x".padStart(1e10, "ab"))\n', "1:7"],
  ["string doubling", 'var s = "x"\nwhile true { s = s + s }\n', "2:18"],
  ["array doubling", "var a = [1]\nwhile true { a = a + a }\n", "2:18"],
];

describe("no input aborts the VM", () => {
  for (const [name, src, at] of CASES) {
    it(`${name}: PW3073 at ${at}, exit 1`, () => {
      const prog = join(tempFiles({ "p.pw": src }), "p.pw");
      const r = patchwork(["run", prog]);
      expectDiagnostic(r.stderr, "PW3073", at);
      expect(r.status).toBe(1);
    });
  }

  it("a range that is only iterated is instant", () => {
    const prog = join(tempFiles({ "p.pw": 'for i in 0...1000000000 {\n  if i > 3 { break }\n}\nprint("ok")\n' }), "p.pw");
    const started = Date.now();
    const r = patchwork(["run", prog]);
    expect(r.stdout).toBe("ok\n");
    expect(r.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("with an agent (evaluator on a worker thread) the same diagnostic", () => {
    const dir = tempFiles({ "script.json": JSON.stringify({ prompts: [] }) });
    const command = `"${process.execPath}" "${testAgent}" "${join(dir, "script.json")}"`;
    const prog = join(tempFiles({ "p.pw": "var x = []\nx[1000000000] = 1\n" }), "p.pw");
    const r = patchwork(["run", prog, "--agent", command]);
    expectDiagnostic(r.stderr, "PW3073", "2:1");
    expect(r.status).toBe(1);
  });

  it("--timeout is checked inside long builtin work", () => {
    // Building and sorting 6M strings takes seconds of CPU, in two statements with no loop
    // and no call: only the checks inside join, split and sort can stop it at its 1 s limit.
    const src = 'var a = (0...6000000).join(",").split(",")\na.sort()\nprint("sorted")\n';
    const prog = join(tempFiles({ "p.pw": src }), "p.pw");
    const r = patchwork(["run", prog, "--timeout", "1"], { timeoutMs: 60_000 });
    expectDiagnostic(r.stderr, "PW3072", "[12]:\\d+");
    expect(r.stdout).toBe("");
    expect(r.status).toBe(1);
  });
});
