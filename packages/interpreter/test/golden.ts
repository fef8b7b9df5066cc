/**
 * The golden-fixture runner: a `.pw` file carries its expectations as comments.
 *   # expect: <output line>           (in order; `# expect:` alone is an empty line)
 *   # expect error: PW3xxx at L:C     (the run ends with this diagnostic)
 * Files without expectations (helper modules) are skipped. Each fixture runs in a fresh
 * temporary working directory, with the no-agent agent unless the caller passes one.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeHost, run, type Agent, type RunResult } from "../src/index.js";

export interface Expectations {
  output: string[];
  error: { code: string; line: number; column: number } | null;
}

export function readExpectations(source: string): Expectations {
  const output: string[] = [];
  let error: Expectations["error"] = null;
  for (const line of source.split("\n")) {
    const out = /^\s*# expect:(?: (.*))?$/.exec(line);
    if (out) {
      output.push(out[1] ?? "");
      continue;
    }
    const err = /^\s*# expect error: (PW\d{4}) at (\d+):(\d+)\s*$/.exec(line);
    if (err) error = { code: err[1]!, line: Number(err[2]), column: Number(err[3]) };
  }
  return { output, error };
}

export function hasExpectations(source: string): boolean {
  return /^\s*# expect( error)?:/m.test(source);
}

export function listFixtures(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFixtures(p));
    else if (name.endsWith(".pw") && hasExpectations(readFileSync(p, "utf8"))) out.push(p);
  }
  return out;
}

export interface FixtureRun {
  result: RunResult;
  stderr: string;
  cwd: string;
}

/** Runs a fixture in a fresh temporary directory; returns the result and stderr. */
export function runFixture(path: string, agent?: Agent, codegen = true): FixtureRun {
  const cwd = mkdtempSync(join(tmpdir(), "pw-fixture-"));
  let stderr = "";
  try {
    const host = createNodeHost({ cwd, stdout: () => {}, stderr: (t) => (stderr += t) });
    const result = run(readFileSync(path, "utf8"), { fileName: path, cwd, host, agent, codegen });
    return { result, stderr, cwd };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Compares a run with a fixture's expectations; returns a list of problems (empty: pass). */
export function checkFixture(path: string, run: FixtureRun): { expected: string; actual: string; error: string | null } {
  const exp = readExpectations(readFileSync(path, "utf8"));
  const expected = exp.output.map((l) => l + "\n").join("");
  const errors = run.result.diagnostics.filter((d) => d.severity === "error");
  let error: string | null = null;
  const describe = errors.map((d) => `${d.code} at ${d.span.start.line}:${d.span.start.column}: ${d.message}`).join("; ");
  if (exp.error) {
    const e = exp.error;
    const found = errors.some((d) => d.code === e.code && d.span.start.line === e.line && d.span.start.column === e.column);
    if (!found) error = `expected error ${e.code} at ${e.line}:${e.column}, got ${describe || "no error"}`;
  } else if (errors.length) error = `unexpected error: ${describe}`;
  return { expected, actual: run.result.output, error };
}
