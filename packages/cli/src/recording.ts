/**
 * `patchwork run --trace / --record / --replay`: opens the trace, loads the cassette to replay,
 * and records the cassette from the run's event stream. Loaded only when one of those options
 * is given (it pulls in the agent package for the trace writer).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { RunEvent, TraceWriter } from "@patchwork/agent";
// The parser-free core: a replay or a resume loads no parser (nor, without --trace, the agent
// package). The cassette's reader comes from it; the journal of --record/--resume from
// journal.ts, imported only then.
import { CassetteError, readCassetteText, type Cassette, type PwEvent, type ReadCassette } from "@patchwork/interpreter/core";
import type { JournaledRecording } from "@patchwork/interpreter/journal";
import type { Diagnostic } from "@patchwork/parser";
import { UsageError } from "./files.js";
import type { Terminal } from "./terminal.js";

export interface RecordingArgs {
  file: string;
  trace?: string;
  traceTextLimit?: number;
  record?: string;
  replay?: string;
  replayMissing?: "error" | "agent";
  /** `--resume FILE`: replay FILE's answers, ask the agent the rest, and go on appending to FILE. */
  resume?: string;
}

export interface Recording {
  trace: TraceWriter | null;
  replay: { cassette: Cassette; fileName: string } | null;
  /** Feed every event of the run to the cassette recorder (null when not recording). The trace is fed apart. */
  onEvent: ((event: RunEvent | PwEvent) => void) | null;
  /** After the run: closes the cassette being recorded (every think is in it already) and says what it holds. */
  finish(result: { cancelled: boolean; ok: boolean; budgetStop?: BudgetStopNote }): void;
  /** The run's thinks are recorded to a cassette (`--record`, `--resume`…). */
  records: boolean;
}

/** A run stopped at its budget: what it spent, its limit, and the option to go on with (`--max-thinks 3`; "": none). */
export interface BudgetStopNote {
  kind: "thinks" | "cost" | "tokens";
  spent: string;
  limit: string;
  hint: string;
}

/**
 * Reads and checks a cassette; a bad one is a CassetteError naming the line or entry. A file
 * a killed recording cut short is read up to its last whole entry, and `warn` says so.
 */
export function loadCassette(path: string, warn?: (message: string) => void): ReadCassette & { text: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${path}: ${code === "ENOENT" ? "no such cassette" : `cannot read (${code ?? String(error)})`}`);
  }
  const read = readCassetteText(text, path);
  if (read.cut) {
    const n = read.cassette.thinks.length;
    warn?.(`${path} ends inside an entry (a recording killed while writing it): kept the ${n} whole ${n === 1 ? "entry" : "entries"} before it`);
  }
  return { ...read, text };
}

/**
 * `inProcess`: the evaluator runs on this thread, so no timer can flush the trace while the
 * program runs; every record is written at once instead.
 */
export async function openRecording(args: RecordingArgs, term: Terminal, { inProcess }: { inProcess: boolean }): Promise<Recording> {
  const replayPath = args.resume ?? args.replay;
  const warn = (message: string) => term.stderr(`patchwork: warning: ${message}\n`);
  const read = replayPath ? (loadResumed(args.resume, warn) ?? loadCassette(replayPath, warn)) : null;
  const replay = read && replayPath ? { cassette: read.cassette, fileName: replayPath } : null;
  const recordPath = args.resume ?? args.record ?? (args.replayMissing === "agent" ? args.replay : undefined);
  // Replaying and recording to the same file: the journal starts with the entries replayed.
  const resuming = replayPath !== undefined && recordPath !== undefined && resolve(replayPath) === resolve(recordPath);
  let recording: JournaledRecording | null = null;
  if (recordPath) {
    const { JournaledRecording } = await import("./journal.js");
    try {
      recording = new JournaledRecording({
        path: recordPath,
        program: args.file,
        replayed: replay?.cassette ?? null,
        resume: resuming,
        ...(read && !read.cut ? { keptText: read.text } : {}),
      });
    } catch (error) {
      throw new UsageError(`cannot write the cassette ${recordPath}: ${(error as Error).message}`);
    }
  }
  let trace: TraceWriter | null = null;
  if (args.trace) {
    // The agent package only for a trace: a replay or a resume starts without loading it here.
    const { TraceWriter } = await import("@patchwork/agent");
    let warned = false;
    try {
      trace = new TraceWriter(args.trace, {
        textLimit: args.traceTextLimit,
        ...(inProcess ? { flushMs: 0 } : {}),
        onWarning: (message) => {
          if (!warned) term.stderr(`patchwork: warning: ${message}\n`);
          warned = true;
        },
      });
    } catch (error) {
      recording?.finish({ complete: false });
      throw new UsageError((error as Error).message);
    }
  }
  // The recorder ignores agent-side events: it needs only the evaluator's.
  const onEvent = recording ? (event: RunEvent | PwEvent) => recording.handle(event as PwEvent) : null;
  return {
    trace,
    replay,
    onEvent,
    records: recordPath !== undefined,
    finish({ cancelled, ok, budgetStop }) {
      if (!recording || !recordPath) return;
      let summary;
      try {
        summary = recording.finish({ complete: ok && !cancelled });
      } catch (error) {
        term.stderr(`patchwork: cannot write the cassette ${recordPath}: ${(error as Error).message}\n`);
        return;
      }
      // A run that went on past failed thinks (settle(), try/catch): the cassette lacks them, a resume asks them again.
      const failed = ok && !cancelled && summary.failed > 0 ? `${count(summary.failed)} failed (not kept: --resume ${recordPath} asks ${summary.failed === 1 ? "it" : "them"} again)` : "";
      if (replay) term.stderr(`patchwork: ${recordPath}: ${count(summary.replayed)} replayed, ${count(summary.live)} asked live${failed ? `, ${failed}` : ""}\n`);
      else if (failed) term.stderr(`patchwork: ${recordPath}: ${failed}\n`);
      if (budgetStop) {
        term.stderr(
          `patchwork: the run stopped at its budget (limit ${budgetStop.limit}, ${budgetStop.spent} ${budgetStop.kind === "thinks" ? "asked" : "spent"}): cassette ${recordPath} keeps ${summary.entries} answered ${summary.entries === 1 ? "think" : "thinks"}; ` +
            `go on with --resume ${recordPath} and a limit for what is left (replayed thinks cost nothing), e.g. --resume ${recordPath}${budgetStop.hint ? ` ${budgetStop.hint}` : ""}\n`,
        );
      } else if (cancelled || (!ok && summary.entries > 0)) {
        term.stderr(
          `patchwork: the run ${cancelled ? "was cancelled" : "failed"}: cassette ${recordPath} keeps ${summary.entries} answered ${summary.entries === 1 ? "think" : "thinks"}; ` +
            `go on with --resume ${recordPath}\n`,
        );
      }
    },
  };
}

function count(n: number): string {
  return `${n} ${n === 1 ? "think" : "thinks"}`;
}

/** `--resume FILE` of a recording killed before it wrote anything: nothing to replay (said on stderr). */
function loadResumed(path: string | undefined, warn: (message: string) => void): (ReadCassette & { text: string }) | null {
  if (path === undefined || existsSync(path)) return null;
  warn(`${path} does not exist (a recording killed before its first write?): nothing to replay, recording from the start`);
  return { cassette: { version: 1, thinks: [] }, cut: false, text: "" };
}

/** A bad cassette as the CLI reports it: the message, no stack; exit status 1. */
export function reportCassetteError(error: unknown, term: Terminal): number {
  if (error instanceof CassetteError) {
    term.stderr(`patchwork: error: ${error.message}\n`);
    return 1;
  }
  throw error;
}

export type { Diagnostic };
