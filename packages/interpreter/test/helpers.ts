/** Shared helpers: run source in memory with captured output and a temp cwd. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeHost, run, type Agent, type PwEvent, type RunOptions, type RunResult } from "../src/index.js";

export interface Ran extends RunResult {
  stderr: string;
  events: PwEvent[];
  cwd: string;
  /** The first error diagnostic as "CODE at L:C: message", or null. */
  error: string | null;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "pw-test-"));
}

export function runSource(source: string, options: RunOptions & { agent?: Agent } = {}): Ran {
  const cwd = options.cwd ?? tempDir();
  let stderr = "";
  const events: PwEvent[] = [];
  const host =
    options.host ??
    createNodeHost({ cwd, stdout: () => {}, stderr: (t) => (stderr += t), onEvent: (e) => events.push(e) });
  const r = run(source, { fileName: "test.pw", ...options, cwd, host });
  const err = r.diagnostics.find((d) => d.severity === "error");
  const error = err ? `${err.code} at ${err.span.start.line}:${err.span.start.column}: ${err.message}` : null;
  return { ...r, stderr, events, cwd, error };
}
