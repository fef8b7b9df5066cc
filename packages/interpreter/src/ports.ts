/**
 * The interpreter's ports: the only ways a running program reaches the outside world.
 *
 * - `Agent` answers think/ask blocks. It is synchronous: the evaluator is a plain
 *   recursive tree-walker and blocks until the agent has answered. Asynchronous agents
 *   (ACP, anything network-bound) are adapted by `@patchwork/agent`, which runs the
 *   evaluator on a worker thread and blocks it on a channel.
 * - `Host` does files, shell, output and receives the event stream.
 *
 * The interpreter knows nothing of ACP, MCP or threads.
 */
import type { Span } from "@patchwork/parser";

/** JSON-shaped data crossing a port (structured-clone safe). */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

// ─────────────────────────────────── Agent ───────────────────────────────────

export interface ThinkRequest {
  /** Run-wide think number (1, 2, …): the same id as this think's `think-start`/`think-end` events. */
  id: number;
  kind: "think" | "ask";
  /** The rendered prompt, exactly as the agent should receive it. */
  prompt: string;
  /** The declared type of the result as source text (`"string"`, `"{name: string}"`…), or null. */
  typeText: string | null;
  /** JSON schema of the expected result for typed thinks, else null. */
  schema: JsonValue | null;
  /** Number of `do` children the agent may run (valid numbers: 0 … childCount-1). */
  childCount: number;
  /** Where the think is written. */
  fileName: string;
  span: Span;
  /** The worker whose evaluator asks (absent: the main program). Cassettes key thinks by worker and ordinal. */
  worker?: string;
  /**
   * What the program's text says of thinks to come, for an agent that prepares sessions ahead
   * (docs/agent.md): `nested`, the think and ask blocks written inside this think's `do`
   * blocks; `loop`, the think is written inside a loop (its next iteration thinks again).
   * Absent when neither.
   */
  ahead?: { nested: number; loop: boolean };
}

/** What running one `do` child produced: its text, or why it failed. */
export type ChildResult = { ok: true; text: string } | { ok: false; error: string };

/**
 * Evaluates child `index` of the current think, re-entrantly, on the caller's stack.
 * Never throws for user-level failures (bad index, runtime error in the child): those
 * come back as `{ok: false}` so the agent can tell the model.
 */
export type RunChild = (index: number) => ChildResult;

/**
 * The answer to a think.
 * - `text`: the agent's reply; the interpreter extracts and converts it by the declared type.
 *   `followUp`, when present, continues the same conversation (used once to repair a reply
 *   that does not match the type).
 * - `value`: a ready value used as is (the no-agent agent returns `{__think_prompt}`).
 */
export type ThinkReply =
  | {
      kind: "text";
      text: string;
      followUp?: (message: string, runChild: RunChild) => ThinkReply;
    }
  | { kind: "value"; value: JsonValue };

export interface Agent {
  think(request: ThinkRequest, runChild: RunChild): ThinkReply;
  /**
   * A think that can be answered without blocking the thread (decision 0016, "Thinks": a
   * statement-level think with no `do` block, untyped, in a task run resumably): the request to
   * hand to the task's driver (which answers it with a `ThinkAnswer`), or null (or no method) to
   * ask through `think` as usual.
   */
  defer?(request: ThinkRequest): ThinkRequest | null;
}

/** The answer to a deferred think (`Agent.defer`): the reply's text, or the agent's failure. */
export type ThinkAnswer = { ok: true; text: string } | { ok: false; code: string; message: string };

/**
 * An agent failure (crash, refusal, protocol error…). The interpreter turns it into a runtime
 * error positioned at the think. `code` is a PW4xxx code.
 */
export class AgentError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "AgentError";
    this.code = code;
  }
}

// ──────────────────────────────────── Host ───────────────────────────────────

export interface ShellOptions {
  cwd: string;
  /** Extra environment for the child. */
  env?: Record<string, string>;
  /**
   * The program's time left (its `timeoutMs` limit): stop the command, and whatever it
   * started, when it runs out. The interpreter then raises its time-limit error.
   */
  timeoutMs?: number;
  /** Where the command is written (a host that can stop a run positions its error there). */
  at?: { span: Span; fileName: string };
}

export interface ShellResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Side effects leave the evaluator as one ordered stream of events (design.md §4). The CLI
 * renders them, the trace writer (`@patchwork/agent`) records them, the cassette recorder
 * builds a cassette from them. The agent package adds its own `AgentEvent`s; both are listed
 * and documented in docs/trace.md. `worker` (on think events) names the worker whose
 * evaluator emitted the event; absent means the main program.
 */
export type PwEvent =
  | { type: "print"; text: string }
  | { type: "log"; text: string }
  | {
      type: "shell";
      /** The command line as run (interpolated values shown as their text). */
      command: string;
      status: number;
      span: Span;
      fileName?: string;
      durationMs?: number;
      /** Sizes (UTF-16 code units) of what the command wrote; the output itself is not in the event. */
      stdoutLength?: number;
      stderrLength?: number;
    }
  | {
      type: "think-start";
      id: number;
      kind: "think" | "ask";
      prompt: string;
      fileName: string;
      span: Span;
      /** The declared type of the result as source text, or null. */
      typeText?: string | null;
      worker?: string;
    }
  /** A typed think's reply did not convert: the same conversation gets `message` (one repair turn). */
  | { type: "think-repair"; id: number; reply: string; error: string; message: string; worker?: string }
  | {
      type: "think-end";
      id: number;
      ok: boolean;
      /** The agent's final reply text (absent when the agent gave a ready value, or failed). */
      reply?: string;
      /** The think's value as JSON (when ok). */
      value?: JsonValue;
      /** Why the think failed (when not ok). */
      error?: string;
      worker?: string;
    }
  | { type: "do-start"; thinkId: number; index: number }
  | {
      type: "do-end";
      thinkId: number;
      index: number;
      ok: boolean;
      /** What the block gave the model: what it printed, else its value as text (when ok). */
      text?: string;
      /** Why it failed (when not ok). */
      error?: string;
    }
  /**
   * A `for` loop starts (only when a host listens): `loop` numbers it among the evaluator's
   * loops (with `worker`, it names the loop in the run); `total`, its number of items (null:
   * not known); `labels`, the first items (at most 200) as short text; `variable`, the loop
   * variable's name.
   */
  | {
      type: "loop-start";
      loop: number;
      fileName: string;
      span: Span;
      variable: string;
      total: number | null;
      labels?: string[];
      worker?: string;
    }
  /** Item `index` (0-based) of the loop starts: the items before it are done. */
  | { type: "loop-item"; loop: number; index: number; worker?: string }
  /** The loop ended (`ok` false: an error left it); `done`, how many items it went through. */
  | { type: "loop-end"; loop: number; ok: boolean; done: number; worker?: string };

export interface Host {
  /** Program output (stdout). */
  write(text: string): void;
  /** Diagnostics and `log(...)` (stderr). The text ends with its own newline, as for `write`. */
  log(text: string): void;
  readFile(path: string): string;
  /** Atomic: write a temporary file, then rename it into place. */
  writeFile(path: string, text: string): void;
  exists(path: string): boolean;
  env(name: string): string | undefined;
  /** Run `command` through `/bin/sh -c`, capturing stdout and stderr. */
  shell(command: string, options: ShellOptions): ShellResult;
  /** Optional: read a line from the user (for `--ask-user`). Null at end of input. */
  readLine?(prompt: string): string | null;
  /** Optional event sink. */
  event?(event: PwEvent): void;
}

// ─────────────────────────────────── Workers ──────────────────────────────────

/**
 * One worker task to run: the worker `worker` (an item name, or `Trait.method`) declared in
 * `fileName`, called with `args` (copies: workers share no values, only mailboxes).
 */
export interface WorkerTask {
  fileName: string;
  worker: string;
  args: JsonValue[];
}

/** Why a task failed: its error, positioned where it was raised, naming the worker. */
export interface WorkerFailure {
  worker: string;
  code: string;
  message: string;
  fileName: string;
  span: Span;
  /** For `throw v` in the worker: the thrown value (a copy). */
  thrown?: JsonValue;
}

/** How one task of a settled delegation ended. */
export type TaskOutcome = { ok: true; value: JsonValue } | { ok: false; failure: WorkerFailure };

/**
 * A join's answer: a fail-fast delegation's values in order, or its first failure; a settled
 * delegation's (`self.delegate(…).settle()`) outcome of every task, in order.
 */
export type JoinResult = { ok: true; values: JsonValue[] } | { ok: false; failure: WorkerFailure } | { ok: "settled"; outcomes: TaskOutcome[] };

/**
 * How a delegation treats a failure: `fail-fast` (the default, the reference's semantics) cancels
 * the other tasks and the join raises the failure; `settle` lets every task finish and the join
 * gives each one's outcome. A fatal failure (one `catch` cannot see: a replay mismatch, a step or
 * time limit) ends a settled delegation as a fail-fast one.
 */
export type DelegateMode = "fail-fast" | "settle";

/**
 * `self.session.usage` (language.md §4): thinks asked of the agent so far (replayed ones cost
 * nothing and are not counted), tokens and cost by currency as the agent reported them (null:
 * it reported none).
 */
export interface SessionUsage {
  thinks: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: Record<string, number> | null;
}


export type ReceiveResult = { ok: true; value: JsonValue } | { ok: false; reason: "timeout" };

/**
 * Runs worker tasks and carries messages between them (language.md §4, docs/workers.md).
 * The interpreter owns the semantics; an implementation decides where tasks run: the
 * interpreter's in-thread one runs them one after another on the caller's thread,
 * `@patchwork/agent` runs each on its own evaluator thread.
 */
export interface Workers {
  /** `self.session.id` (a ULID, unique per run) and `self.session.timestamp` (run start, ISO 8601). */
  readonly sessionId: string;
  readonly sessionTimestamp: string;
  /** `self.session.dir`: the run's scratch directory, created on first use. */
  sessionDir(): string;
  /** `self.session.usage`: what the run has spent so far (an implementation without an agent runtime: nothing). */
  sessionUsage(): SessionUsage;
  /** Starts the tasks (all at once, as far as the implementation can); returns the group's handle. */
  start(tasks: WorkerTask[], mode?: DelegateMode): number;
  /**
   * Blocks until every task of the group has finished, or (fail-fast) the first has failed: the
   * others are cancelled. A settled group's answer is every task's outcome.
   */
  join(group: number): JoinResult;
  /** Appends a copy of `value` to the mailbox `name` (shared by all workers of the run). */
  send(name: string, value: JsonValue): void;
  /** Blocks until mailbox `name` has a message (taken off it) or `timeoutMs` has passed. */
  receive(name: string, timeoutMs: number): ReceiveResult;
}
