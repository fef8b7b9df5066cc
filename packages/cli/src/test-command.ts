/**
 * `patchwork test [path]` (docs/testing.md): runs every `NAME.test.pw` under `path` (or the one
 * file given) with its cassette `NAME.cassette.json`, no agent, and compares what it printed
 * (stdout, then stderr and the exit status when there are any) with the snapshot `NAME.snap`.
 * `--update` rewrites the snapshots; with `--agent` it first re-records the cassettes with
 * that agent. One line per test (a diff under a failure), then `N passed, N failed`.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import { SourceFile, type Diagnostic } from "@patchwork/parser";
import {
  CassetteAgent,
  CassetteError,
  NoAgent,
  createNodeHost,
  lineDiff,
  parseCassette,
  run,
  writeFileAtomic,
  type Agent,
} from "@patchwork/interpreter";
import { UsageError, renderDiagnostics } from "./files.js";
import type { Terminal } from "./terminal.js";
import { fsReason, walkFiles, type WalkResult } from "./walk.js";

export interface TestArgs {
  path?: string;
  update?: boolean;
  agent?: string;
  noAgent?: boolean;
  verbose?: boolean;
  permissions?: "allow" | "deny" | "ask";
  idleTimeout?: number;
}

interface Outcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The replay no longer matches the cassette (PW3032, PW3033, PW3034): the test fails whatever the snapshot says. */
  replayError?: string;
}

const REPLAY_ERRORS = new Set(["PW3032", "PW3033", "PW3034"]);

const SUFFIX = ".test.pw";

/**
 * The test files under `path` (a directory, searched recursively, walk.ts) or `path` itself,
 * and what the search could not look at.
 */
export function findTests(path: string): WalkResult {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${path}: ${code === "ENOENT" ? "no such file or directory" : fsReason(error)}`);
  }
  if (!stat.isDirectory()) {
    if (!path.endsWith(SUFFIX)) throw new UsageError(`${path}: a test file's name ends with ${SUFFIX}`);
    return { files: [path], problems: [] };
  }
  return walkFiles(path, (name) => name.endsWith(SUFFIX));
}

export function companions(test: string): { cassette: string; snapshot: string } {
  const stem = test.slice(0, -SUFFIX.length);
  return { cassette: `${stem}.cassette.json`, snapshot: `${stem}.snap` };
}

/** The snapshot text of an outcome: stdout; then stderr and the exit status if there are any. */
export function snapshotText(o: Outcome): string {
  let text = o.stdout;
  if (o.stderr !== "") text += `${text === "" || text.endsWith("\n") ? "" : "\n"}--- stderr ---\n${o.stderr}`;
  if (o.exitCode !== 0) text += `${text === "" || text.endsWith("\n") ? "" : "\n"}--- exit ${o.exitCode} ---\n`;
  return text;
}

function render(diagnostics: Diagnostic[], source: string, fileName: string): string {
  return diagnostics.length > 0 ? renderDiagnostics(diagnostics, new SourceFile(source, fileName)) : "";
}

/** Replays one test in this process: the cassette's answers, the program's real code. */
function replay(test: string, cassettePath: string): Outcome {
  const dir = dirname(resolve(test));
  const fileName = basename(test);
  const source = readFileSync(test, "utf8");
  let agent: Agent = new NoAgent();
  if (existsSync(cassettePath)) {
    const cassette = parseCassette(readFileSync(cassettePath, "utf8"), relative(process.cwd(), cassettePath) || cassettePath);
    agent = new CassetteAgent(cassette, { fileName: basename(cassettePath) });
  }
  let stdout = "";
  let stderr = "";
  const host = createNodeHost({ cwd: dir, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  const result = run(source, { fileName, agent, host, cwd: dir });
  stderr += render(result.diagnostics, source, fileName);
  const drift = result.diagnostics.find((d) => REPLAY_ERRORS.has(d.code));
  return {
    stdout,
    stderr,
    exitCode: result.diagnostics.some((d) => d.severity === "error") ? 1 : 0,
    ...(drift ? { replayError: render([drift], source, fileName) } : {}),
  };
}

/** Re-records one test's cassette with a live agent (`--update --agent`). */
async function recordWithAgent(test: string, cassettePath: string, args: TestArgs, term: Terminal): Promise<string | null> {
  const { runWithAgent } = await import("@patchwork/agent");
  const { CassetteRecorder, formatCassette } = await import("@patchwork/interpreter");
  const { resolveAgentCommand } = await import("./presets.js");
  const dir = dirname(resolve(test));
  const fileName = basename(test);
  const recorder = new CassetteRecorder(fileName);
  // --verbose: what the agent does, as `run --verbose` shows it.
  const progress = args.verbose ? new (await import("./progress.js")).Progress({ ...term, stderrIsTTY: false }, { spinner: false, verbose: Number(args.verbose) }) : undefined;
  const result = await runWithAgent({
    source: readFileSync(test, "utf8"),
    fileName,
    cwd: dir,
    agent: {
      command: resolveAgentCommand(args.agent!),
      cwd: dir,
      permissions: { do: "allow", other: args.permissions === "allow" ? "allow" : "deny" },
      ...(args.idleTimeout !== undefined ? { thinkIdleTimeoutMs: args.idleTimeout * 1000 } : {}),
    },
    writeOutput: false,
    onEvent: (e) => {
      recorder.handle(e as Parameters<typeof recorder.handle>[0]);
      progress?.handle(e);
    },
  });
  progress?.stop();
  if (result.cancelled) return "the recording run was cancelled";
  const agentFailure = result.diagnostics.find((d) => d.code.startsWith("PW4"));
  if (agentFailure) return `the agent failed: ${agentFailure.message}`;
  writeFileAtomic(cassettePath, formatCassette(recorder.cassette()));
  return null;
}

/** `--verbose`: a test's output (its snapshot text), indented under its line. */
function showOutcome(o: Outcome): string {
  const text = snapshotText(o);
  return text === "" ? "    (no output)\n" : text.replace(/\n$/, "").split("\n").map((l) => `    │ ${l}`).join("\n") + "\n";
}

/** A failed read, naming the file (the test, its cassette or its snapshot). */
function cannotRead(error: unknown): string {
  const path = (error as NodeJS.ErrnoException).path;
  return `cannot read${path ? ` ${basename(path)}` : ""}: ${fsReason(error)}`;
}

export async function testCommand(args: TestArgs, term: Terminal): Promise<number> {
  if (args.agent !== undefined && !args.update) throw new UsageError("--agent goes with --update: tests replay their cassettes, with no agent");
  if (args.agent !== undefined && args.noAgent) throw new UsageError("--agent and --no-agent say opposite things: give one");
  if (args.permissions === "ask") throw new UsageError("--permissions ask: a recording answers the agent's requests itself; give allow or deny");
  if (args.idleTimeout !== undefined && !(args.idleTimeout > 0)) throw new UsageError("--idle-timeout takes a positive number of seconds");
  const { files: tests, problems } = findTests(args.path ?? ".");
  let passed = 0;
  let failed = 0;
  // --verbose: each test's output, written under its line.
  const shown = new Map<string, string>();
  const say = (line: string, test?: string) => term.stdout(line + (test !== undefined ? (shown.get(test) ?? "") : ""));
  // What the search could not look at fails the run (a loop is only a note: nothing is missed).
  for (const p of problems) {
    const name = relative(process.cwd(), p.path) || p.path;
    if (p.severity === "error") failed++;
    term.stdout(`${p.severity === "error" ? "FAIL" : "NOTE"} ${name}: ${p.message}\n`);
  }
  for (const test of tests) {
    const { cassette, snapshot } = companions(test);
    const name = relative(process.cwd(), test) || test;
    let outcome: Outcome;
    try {
      if (args.update && args.agent) {
        const problem = await recordWithAgent(test, cassette, args, term);
        if (problem) {
          failed++;
          term.stdout(`FAIL ${name}: cannot record ${basename(cassette)}: ${problem}\n`);
          continue;
        }
      }
      outcome = replay(test, cassette);
      if (args.verbose) shown.set(test, showOutcome(outcome));
    } catch (error) {
      const unreadable = typeof (error as NodeJS.ErrnoException).code === "string";
      if (!(error instanceof CassetteError) && !unreadable) throw error;
      failed++;
      term.stdout(`FAIL ${name}: ${unreadable ? cannotRead(error) : (error as Error).message}\n`);
      continue;
    }
    if (outcome.replayError) {
      failed++;
      const why = outcome.replayError.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
      say(`FAIL ${name}: the run does not match ${basename(cassette)} (re-record it with --update --agent):\n${why}\n`, test);
      continue;
    }
    const actual = snapshotText(outcome);
    if (args.update) {
      const existed = existsSync(snapshot);
      const same = existed && readFileSync(snapshot, "utf8") === actual;
      if (!same) {
        try {
          writeFileAtomic(snapshot, actual);
        } catch (error) {
          failed++;
          say(`FAIL ${name}: ${(error as Error).message}\n`, test);
          continue;
        }
      }
      passed++;
      say(`PASS ${name} (snapshot ${same ? "unchanged" : existed ? "updated" : "created"})\n`, test);
      continue;
    }
    if (!existsSync(snapshot)) {
      failed++;
      say(`FAIL ${name}: no snapshot ${basename(snapshot)} (run patchwork test --update to write it)\n`, test);
      continue;
    }
    let expected: string;
    try {
      expected = readFileSync(snapshot, "utf8");
    } catch (error) {
      failed++;
      say(`FAIL ${name}: ${cannotRead(error)}\n`, test);
      continue;
    }
    if (expected === actual) {
      passed++;
      say(`PASS ${name}\n`, test);
    } else {
      failed++;
      const diff = lineDiff(expected, actual)
        .split("\n")
        .map((l) => `    ${l}`)
        .join("\n");
      say(`FAIL ${name}: the output differs from ${basename(snapshot)} (- snapshot, + now):\n${diff}\n`, test);
    }
  }
  // No test at all is a failure: a wrong path in CI must not pass silently.
  if (tests.length === 0) {
    term.stderr(`patchwork test: no tests found: no ${SUFFIX} files under ${args.path ?? "."} (a test is NAME${SUFFIX}, with NAME.snap beside it)\n`);
    return 1;
  }
  term.stdout(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}
