/**
 * Messages between the evaluator thread and the main thread.
 *
 * Worker → main on `parentPort`: `think` (with a fresh response channel), `event`, `done`.
 * Main → worker on a think's channel: `ThinkResponse::Do` and `ThinkResponse::Complete`,
 * as in the seeds; worker → main on the same channel: the `do` result and follow-up turns.
 */
import type { DelegateEvent } from "../progress/labels.js";
import type { MessagePort } from "node:worker_threads";
import type {
  Cassette,
  ChildResult,
  DelegateMode,
  JoinResult,
  JsonValue,
  PwEvent,
  ReceiveResult,
  SessionInfo,
  SessionUsage,
  ShellResult,
  ThinkRequest,
  Wait,
  WaitAnswer,
  WorkerTask,
} from "@patchwork/interpreter";
import type { Diagnostic, Program, Span } from "@patchwork/parser";

/** Where a shell command is written (a timeout or a dying agent is positioned there). */
export interface ShellAt {
  span: Span;
  fileName: string;
}

export interface WorkerInit {
  source: string;
  fileName: string;
  cwd: string;
  entry?: string;
  limits?: Record<string, number>;
  /** Write program output with synchronous fd writes (stdout/stderr) as it happens. */
  writeOutput: boolean;
  /** `ask` blocks read a line from the terminal instead of asking the agent. */
  askUser?: boolean;
  /** Standard input of shell commands (default "ignore"). */
  shellStdin?: "ignore" | "inherit";
  env?: Record<string, string | undefined>;
  /** Module exporting `run` and `createNodeHost` (default `@patchwork/interpreter`). */
  evaluatorModule?: string;
  /** `entry` may be the default entry's first argument instead (a command line's first word). */
  entryMayBeArgument?: boolean;
  /** Arguments for the entry as command-line text (converted to its parameter types). */
  argStrings?: { positional?: string[]; named?: Record<string, string> };
  /** Arguments for the entry as data, checked against its parameter types (an MCP tool call's). */
  args?: JsonValue[];
  /** The run's session (`self.session`), the same in every thread. */
  session?: SessionInfo;
  /** "none": thinks evaluate to their prompt in this thread (no agent). Default: the main thread's agent. */
  agentMode?: "thread" | "none";
  /** This thread runs one worker task (only its entry, with these arguments), not the program. */
  task?: WorkerTask;
  /** The lock its `write()`s share with the pool that may stop it (write-lock.ts); one per thread. */
  writeLock?: SharedArrayBuffer;
  /** The AST of the task's file, when the main thread has it (the thread then needs no parser). */
  taskProgram?: Program;
  /**
   * What `taskProgram` is (its file and worker): a thread keeps each one it was given, and the
   * next tasks of that worker on the thread come without it (one copy a thread, not a task).
   */
  taskProgramKey?: string;
  /** The program's AST and parse diagnostics, parsed by the caller (the program's thread then needs no parser). */
  parsed?: { program: Program; diagnostics: Diagnostic[] };
  /** Every file the program's imports load, parsed (with `parsed`; task threads get it too). */
  modules?: ParsedModules;
  /** Run nothing until the main thread says `go` (the agent is still starting); load and parse meanwhile. */
  gated?: boolean;
  /** The main thread has told the agent how many thinks the program's text holds (`thinks-ahead` is not sent). */
  hinted?: boolean;
  /** A task thread started ahead of any task (pool.ts): it loads, then waits for its first `next-task`. */
  standby?: boolean;
  /** The task's id on its thread (pool.ts): the thread's messages about it carry it as `task`. */
  taskId?: number;
  /** The worker key of the task this thread runs (pool.ts): set on its think requests and think events. */
  worker?: string;
  /** Write output in whole lines only (threads running side by side never split each other's lines). */
  lineBuffered?: boolean;
  /** Answer thinks from this cassette where it has them; the agent answers the others. */
  replay?: { cassette: Cassette; fileName?: string };
  /**
   * A session thread (the ACP proxy): `source` is not run; the thread says `ready`, then runs
   * each `SessionRunMessage` in one interpreter session (state kept) and answers `done`.
   */
  repl?: boolean;
}

/** Files parsed ahead of a run, by path as the program's imports name them: their text and parse. */
export type ParsedModules = Record<string, { text: string; program: Program; diagnostics: Diagnostic[] }>;

/** Main → the program's thread on `parentPort`, when `gated`: the agent is up, run the program. */
export interface GoMessage {
  type: "go";
}

/** Main → session thread on `parentPort`: the next program of the session. */
export interface SessionRunMessage {
  runId: number;
  source: string;
  fileName: string;
  /** After the program, run this entry (or its default one) with these arguments (`/run file.pw entry args…`). */
  main?: SessionEntry;
}

/** Main → a task thread whose task is done, on `parentPort`: run this task next (pool.ts reuses threads). */
export interface NextTaskMessage {
  type: "next-task";
  init: WorkerInit;
}

/**
 * Main → a task thread, about one of its tasks: the answer to the wait it is suspended in
 * (decision 0016), or its cancellation (the thread drops it).
 */
export type TaskControlMessage = { type: "wait-answer"; task: number; answer: WaitAnswer } | { type: "cancel-task"; task: number };

/** An entry to run after a session's program, named and given arguments as on a command line. */
export interface SessionEntry {
  entry?: string;
  argStrings?: { positional?: string[]; named?: Record<string, string> };
  entryMayBeArgument?: boolean;
}

/**
 * The worker's `ThinkRequest` message. Its response channel is `seq`: a fresh logical
 * channel per think, carried over the one response port set up by `hello` (a fresh
 * MessagePort per think measured ~0.15 ms slower per think; see docs/agent.md).
 */
export interface ThinkRequestMessage {
  type: "think";
  /** Evaluator-thread sequence number of this think (1, 2, …): its channel id. */
  seq: number;
  request: ThinkRequest;
  /** This think's `think-start` event, sent with the request (emitted before the think starts). */
  start?: PwEvent;
}

/** Sent once at start: the port carrying every think channel, and the wake-up counter. */
export interface HelloMessage {
  type: "hello";
  port: MessagePort;
  /** Int32 counter the main thread bumps after each post (the worker `Atomics.wait`s on it). */
  signal: SharedArrayBuffer;
}

export interface RunOutcome {
  value: JsonValue | null;
  /** The value of an uncaught `throw` (a worker task's failure keeps it). */
  thrown?: JsonValue;
  output: string;
  diagnostics: Diagnostic[];
  /** The entry the run called (its return value is `value`), when it called one. */
  entry?: string;
}

export type WorkerMessage =
  | HelloMessage
  | ThinkRequestMessage
  /** An event (the session thread's in-thread workers send their groups' events too: progress/labels.ts). */
  | { type: "event"; event: PwEvent | DelegateEvent }
  | { type: "output"; text: string }
  | { type: "shell"; seq: number; command: string; cwd: string; env: Record<string, string> | undefined; at?: ShellAt }
  /**
   * `self.delegate`: start these tasks as group `group` (numbered by this thread). The program's
   * thread sends its AST with its first one (task threads of its file get it: no parse).
   */
  | { type: "delegate"; group: number; tasks: WorkerTask[]; mode?: DelegateMode; program?: Program }
  /** `.await` on a delegation: the answer (`joined`) comes on channel `seq`. */
  | { type: "join"; seq: number; group: number }
  | { type: "send"; mailbox: string; value: JsonValue }
  | { type: "receive"; seq: number; mailbox: string; timeoutMs: number }
  /** `self.session.dir`: create the run's directory if it is not there (answered `session-dir`). */
  | { type: "session-dir"; seq: number }
  /** `self.session.usage`: what the run has spent so far (answered `session-usage`). */
  | { type: "session-usage"; seq: number }
  /** The task suspended in a wait that frees its thread; the answer comes as `wait-answer`. */
  | { type: "wait"; wait: Wait }
  | { type: "ready" }
  /** The program's thread has its AST, before it runs: it contains this many think blocks (sessions made ahead). */
  | { type: "thinks-ahead"; thinks: number }
  | { type: "done"; outcome: RunOutcome; runId?: number }
  | { type: "failed"; message: string; stack?: string };

/** A message from an evaluator thread; a task thread's names the task it is about. */
export type FromThread = WorkerMessage & { task?: number };

/** `ThinkResponse`: what the main thread sends on a think's channel (`seq`). */
export type ThinkResponse = { seq: number } & (
  | { type: "do"; doId: number; index: number }
  | { type: "complete"; ok: true; text: string; canFollowUp: boolean }
  | { type: "complete"; ok: false; code: string; message: string }
  | { type: "cancel"; code: string; message: string }
  | { type: "shell-result"; result: ShellResult }
  | { type: "joined"; result: JoinResult }
  | { type: "received"; result: ReceiveResult }
  | { type: "session-dir"; result: { ok: true } | { ok: false; message: string } }
  | { type: "session-usage"; result: SessionUsage }
);

/** What the worker sends back on a think's channel (`seq`). */
export type ThinkReplyMessage = { seq: number } & (
  | { type: "do-result"; doId: number; result: ChildResult }
  | { type: "follow-up"; message: string }
  | { type: "release" }
);
