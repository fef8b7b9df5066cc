/**
 * Messages between the evaluator thread and the main thread.
 *
 * Worker → main on `parentPort`: `think` (with a fresh response channel), `event`, `done`.
 * Main → worker on a think's channel: `ThinkResponse::Do` and `ThinkResponse::Complete`,
 * as in the seeds; worker → main on the same channel: the `do` result and follow-up turns.
 */
import type { MessagePort } from "node:worker_threads";
import type { Cassette, ChildResult, JsonValue, PwEvent, ShellResult, ThinkRequest } from "@patchwork/interpreter";
import type { Diagnostic } from "@patchwork/parser";

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
  /** Answer thinks from this cassette where it has them; the agent answers the others. */
  replay?: { cassette: Cassette; fileName?: string };
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
  output: string;
  diagnostics: Diagnostic[];
}

export type WorkerMessage =
  | HelloMessage
  | ThinkRequestMessage
  | { type: "event"; event: PwEvent }
  | { type: "output"; text: string }
  | { type: "shell"; seq: number; command: string; cwd: string; env: Record<string, string> | undefined }
  | { type: "done"; outcome: RunOutcome }
  | { type: "failed"; message: string; stack?: string };

/** `ThinkResponse`: what the main thread sends on a think's channel (`seq`). */
export type ThinkResponse = { seq: number } & (
  | { type: "do"; doId: number; index: number }
  | { type: "complete"; ok: true; text: string; canFollowUp: boolean }
  | { type: "complete"; ok: false; code: string; message: string }
  | { type: "cancel"; code: string; message: string }
  | { type: "shell-result"; result: ShellResult }
);

/** What the worker sends back on a think's channel (`seq`). */
export type ThinkReplyMessage = { seq: number } & (
  | { type: "do-result"; doId: number; result: ChildResult }
  | { type: "follow-up"; message: string }
  | { type: "release" }
);
