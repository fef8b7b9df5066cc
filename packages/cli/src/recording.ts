/**
 * `patchwork run --trace / --record / --replay`: opens the trace, loads the cassette to replay,
 * and records the cassette from the run's event stream. Loaded only when one of those options
 * is given (it pulls in the agent package for the trace writer).
 */
import { readFileSync } from "node:fs";
import { TraceWriter, type RunEvent } from "@patchwork/agent";
import {
  CassetteError,
  CassetteRecorder,
  formatCassette,
  parseCassette,
  writeFileAtomic,
  type Cassette,
  type PwEvent,
} from "@patchwork/interpreter";
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
}

export interface Recording {
  trace: TraceWriter | null;
  replay: { cassette: Cassette; fileName: string } | null;
  /** Feed every event of the run to the cassette recorder (null when not recording). The trace is fed apart. */
  onEvent: ((event: RunEvent | PwEvent) => void) | null;
  /** After the run: writes the recorded cassette (unless the run was cancelled). */
  finish(result: { cancelled: boolean }): void;
}

/** Reads and checks a cassette; a bad one is a CassetteError naming the line or entry. */
export function loadCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${path}: ${code === "ENOENT" ? "no such cassette" : `cannot read (${code ?? String(error)})`}`);
  }
  return parseCassette(text, path);
}

/**
 * `inProcess`: the evaluator runs on this thread, so no timer can flush the trace while the
 * program runs; every record is written at once instead.
 */
export function openRecording(args: RecordingArgs, term: Terminal, { inProcess }: { inProcess: boolean }): Recording {
  const replay = args.replay ? { cassette: loadCassette(args.replay), fileName: args.replay } : null;
  const recordPath = args.record ?? (args.replayMissing === "agent" ? args.replay : undefined);
  const recorder = recordPath ? new CassetteRecorder(args.file) : null;
  let trace: TraceWriter | null = null;
  if (args.trace) {
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
      throw new UsageError((error as Error).message);
    }
  }
  // The recorder ignores agent-side events: it needs only the evaluator's.
  const onEvent = recorder ? (event: RunEvent | PwEvent) => recorder.handle(event as PwEvent) : null;
  return {
    trace,
    replay,
    onEvent,
    finish({ cancelled }) {
      if (!recorder || !recordPath) return;
      if (cancelled) {
        term.stderr(`patchwork: the run was cancelled: cassette ${recordPath} not written\n`);
        return;
      }
      try {
        writeFileAtomic(recordPath, formatCassette(recorder.cassette()));
      } catch (error) {
        term.stderr(`patchwork: cannot write the cassette ${recordPath}: ${(error as Error).message}\n`);
      }
    },
  };
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
