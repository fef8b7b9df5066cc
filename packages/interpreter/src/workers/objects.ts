/**
 * The worker features' runtime objects (language.md §4, docs/workers.md): a worker item, the
 * task a call of it makes, the pending value of `self.delegate`, `self`, `self.session` and
 * its mailboxes. The `Workers` port (ports.ts) decides where tasks run.
 */
import type { Node, Span } from "@patchwork/parser";
import type { CallSite } from "../builtins/types.js";
import { errorObject, isFatalCode, raise, RuntimeError } from "../errors.js";
import type { DelegateMode, JoinResult, JsonValue, ReceiveResult, TaskOutcome, WorkerFailure, WorkerTask } from "../ports.js";
import type { Runtime } from "../runtime.js";
import { fromJson, PwBuiltin, PwFunction, PwOpaque, toJson, toText, typeName, type Value } from "../values.js";
import type { PwWorkerFn } from "./worker-fn.js";

export { PwWorkerFn } from "./worker-fn.js";

/** `w(args)`: a worker task not started yet. */
export class PwTask extends PwOpaque {
  readonly typeName = "task";
  started = false;
  constructor(
    readonly worker: PwWorkerFn,
    readonly args: Value[],
    readonly node: Node,
    readonly file: string,
  ) {
    super();
  }
  text(): string {
    return `<task ${this.worker.name}>`;
  }
}

/**
 * What `self.delegate([...])` gives: `.await` (or `await`) joins the tasks. A delegation written
 * `self.delegate([...]).settle()` is started in `settle` mode (call.ts), and joining it gives
 * every task's outcome instead of stopping at the first failure.
 */
export class PwPending extends PwOpaque {
  readonly typeName = "pending";
  private outcome: { value: Value } | { error: RuntimeError } | null = null;
  constructor(
    private readonly rt: Runtime,
    private readonly group: number,
    /** How many tasks it has: a fail-fast failure says how to collect the others when there were any. */
    private readonly size: number,
    readonly mode: DelegateMode,
  ) {
    super();
  }
  text(): string {
    return "<pending>";
  }

  /** Blocks until every task has finished: their values (or outcomes) in order, or the failure raised. */
  await(node: Node, file: string): Value {
    if (!this.outcome) this.resolve(this.rt.workers.join(this.group), node, file);
    if ("error" in this.outcome!) throw this.outcome.error;
    return this.outcome!.value;
  }

  /** The group's join has not been answered yet (a resumable task waits for it without blocking). */
  get unresolved(): number | null {
    return this.outcome ? null : this.group;
  }

  /** Takes the group's join answer (got by `await`, or by a resumable task's driver). */
  resolve(r: JoinResult, node: Node, file: string): void {
    if (this.outcome) return;
    if (r.ok === "settled") this.outcome = settledOutcome(r.outcomes, node, file);
    else if (r.ok) this.outcome = { value: r.values.map(fromJson) };
    // (A settled delegation's failure is a fatal one: nothing to say about settle() there.)
    else this.outcome = { error: failureError(r.failure, node, file, this.mode === "fail-fast" && this.size > 1) };
  }

  /** `.settle()`: the delegation itself when it was started so (`self.delegate(…).settle()`). */
  call(name: string, args: Value[], site: CallSite): Value {
    if (name !== "settle") return raise("PW3009", site.span, site.file, { type: "a pending delegation", name, hint: PENDING_HINT });
    if (args.length !== 0) site.fail(`takes no arguments, e.g. self.delegate(tasks).settle().await`);
    if (this.mode === "settle") return this;
    return site.fail(
      "applies to a delegation as it starts: write self.delegate(tasks).settle() in one expression " +
        "(this delegation was started without it, so its first failure cancels the other tasks)",
    );
  }
}

const PENDING_HINT = "join it with .await, or write self.delegate(tasks).settle().await to collect every task's outcome";

/** What a settled delegation's join gives: `{ok: true, value}` or `{ok: false, error}` per task. */
function settledOutcome(outcomes: TaskOutcome[], node: Node, file: string): { value: Value } | { error: RuntimeError } {
  // A fatal failure (a replay mismatch, a limit) is no outcome: `catch` could not see it either.
  const fatal = outcomes.find((o) => !o.ok && isFatalCode(o.failure.code));
  if (fatal && !fatal.ok) return { error: failureError(fatal.failure, node, file, false) };
  const value = outcomes.map((o): Value => {
    if (o.ok) return new Map<string, Value>([["ok", true], ["value", fromJson(o.value)]]);
    return new Map<string, Value>([["ok", false], ["error", errorObject(failureError(o.failure, node, file, false))]]);
  });
  return { value };
}

/** What a fail-fast failure adds when the delegation had other tasks (once, however deeply nested). */
export const SETTLE_HINT = "(the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)";

/**
 * A task's failure, re-raised where it is awaited: positioned at its source inside the worker
 * and naming the worker; a thrown value stays catchable as itself. `hint`: a fail-fast delegation
 * of several tasks, whose others were cancelled.
 */
function failureError(f: WorkerFailure, node: Node, file: string, hint: boolean): RuntimeError {
  // On a line of its own after a message of several lines (a command's output), so as not to read as part of it.
  const say = hint && !f.message.endsWith(SETTLE_HINT) ? `${f.message.includes("\n") ? "\n" : " "}${SETTLE_HINT}` : "";
  const message = `worker '${f.worker}' failed: ${f.message}${say}`;
  const span: Span = f.span ?? node.span;
  const thrown = f.thrown !== undefined ? fromJson(f.thrown) : undefined;
  return new RuntimeError(f.code, message, span, f.fileName || file, thrown);
}

/** `self`: the running worker's view of the run (`delegate`, `session`). */
export class PwSelf extends PwOpaque {
  readonly typeName = "object";
  private session: PwSession | null = null;
  constructor(private readonly rt: Runtime) {
    super();
  }
  text(): string {
    return "<self>";
  }
  member(key: string, node: Node, file: string): Value {
    if (key === "session") return (this.session ??= new PwSession(this.rt));
    return raise("PW3060", node.span, file, { feature: `'self.${key}'` });
  }
  call(name: string, args: Value[], site: CallSite, mode?: DelegateMode): Value {
    if (name !== "delegate") return raise("PW3060", site.span, site.file, { feature: `'self.${name}()'` });
    if (args.length !== 1) site.fail("takes one array of worker tasks, e.g. self.delegate([a(), b()])");
    return delegate(this.rt, args[0]!, site, mode);
  }
}

const selves = new WeakMap<Runtime, PwSelf>();

/** The value of `self` (one per run). */
export function selfOf(rt: Runtime): PwSelf {
  let self = selves.get(rt);
  if (!self) selves.set(rt, (self = new PwSelf(rt)));
  return self;
}

/** Starts the tasks of `list` together; their results come with `.await`. */
export function delegate(rt: Runtime, list: Value, site: CallSite, mode: DelegateMode = "fail-fast"): PwPending {
  if (!Array.isArray(list)) return site.fail(`takes an array of worker tasks, got ${typeName(list)}`);
  const tasks: WorkerTask[] = [];
  list.forEach((t, i) => {
    if (!(t instanceof PwTask))
      return site.fail(`element ${i} is ${typeName(t)}, not a worker task: write the worker's call in the array itself, self.delegate([w(…), …])`);
    if (t.started) return site.fail(`element ${i} (${t.text()}) was already started`);
    tasks.push({ fileName: t.worker.fileName, worker: t.worker.name, args: t.args.map((a, j) => copyOut(a, `argument ${j + 1} of '${t.worker.name}'`, site)) });
  });
  for (const t of list as PwTask[]) t.started = true;
  return new PwPending(rt, rt.workers.start(tasks, mode), tasks.length, mode);
}

/** Runs one task and waits for its value (`await task`, or a worker call as a statement). */
export function runTask(rt: Runtime, task: PwTask, site: CallSite): Value {
  const values = delegate(rt, [task], site).await(task.node, task.file);
  return (values as Value[])[0] ?? null;
}

/**
 * A copy of `v` as data for another worker: functions, tasks and other runtime objects cannot
 * cross (workers share nothing but mailboxes).
 */
export function copyOut(v: Value, what: string, site: { span: Span; file: string }): JsonValue {
  const bad = findUncopyable(v, 0);
  if (bad) raise("PW3064", site.span, site.file, { what, detail: `it holds ${bad}, and only data (null, booleans, numbers, strings, arrays, objects) crosses between workers` });
  return toJson(v);
}

function findUncopyable(v: Value, depth: number): string | null {
  if (v instanceof PwFunction || v instanceof PwBuiltin || v instanceof PwOpaque) return `a ${typeName(v)} (${toText(v)})`;
  if (depth > 1000) return null;
  if (Array.isArray(v)) {
    for (const x of v) {
      const b = findUncopyable(x, depth + 1);
      if (b) return b;
    }
  } else if (v instanceof Map) {
    for (const x of v.values()) {
      const b = findUncopyable(x, depth + 1);
      if (b) return b;
    }
  }
  return null;
}

/** `self.session`: id, timestamp, dir, usage, mailbox. */
export class PwSession extends PwOpaque {
  readonly typeName = "object";
  private mailboxes: PwMailboxes | null = null;
  constructor(private readonly rt: Runtime) {
    super();
  }
  text(): string {
    return `<session ${this.rt.workers.sessionId}>`;
  }
  member(key: string, node: Node, file: string): Value {
    const w = this.rt.workers;
    switch (key) {
      case "id":
        return w.sessionId;
      case "timestamp":
        return w.sessionTimestamp;
      case "dir":
        try {
          return w.sessionDir();
        } catch (e) {
          return raise("PW3021", node.span, file, { detail: `cannot create the session directory: ${(e as Error).message}` });
        }
      case "usage": {
        // Figures of this moment (a copy): {thinks, inputTokens, outputTokens, cost}.
        const u = w.sessionUsage();
        return fromJson({ thinks: u.thinks, inputTokens: u.inputTokens, outputTokens: u.outputTokens, cost: u.cost });
      }
      case "mailbox":
        return (this.mailboxes ??= new PwMailboxes(this.rt));
    }
    return raise("PW3060", node.span, file, { feature: `'self.session.${key}'` });
  }
}

/** `self.session.mailbox`: `.name` is the mailbox of that name. */
export class PwMailboxes extends PwOpaque {
  readonly typeName = "object";
  private readonly byName = new Map<string, PwMailbox>();
  constructor(private readonly rt: Runtime) {
    super();
  }
  text(): string {
    return "<mailboxes>";
  }
  member(key: string): Value {
    let m = this.byName.get(key);
    if (!m) this.byName.set(key, (m = new PwMailbox(this.rt, key)));
    return m;
  }
}

/** A named FIFO shared by the run's workers: `send(v)`, `receive(ms)`. */
export class PwMailbox extends PwOpaque {
  readonly typeName = "mailbox";
  constructor(
    private readonly rt: Runtime,
    readonly name: string,
  ) {
    super();
  }
  text(): string {
    return `<mailbox ${this.name}>`;
  }
  member(key: string, node: Node, file: string): Value {
    if (key === "name") return this.name;
    return raise("PW3009", node.span, file, { type: "a mailbox", name: key });
  }
  call(name: string, args: Value[], site: CallSite): Value {
    if (name === "send") {
      if (args.length !== 1) site.fail(`takes 1 argument (the message), got ${args.length}`);
      this.rt.workers.send(this.name, copyOut(args[0]!, "a message", site));
      return null;
    }
    if (name === "receive") {
      const ms = this.receiveTimeout(args, site);
      return this.received(this.rt.workers.receive(this.name, ms), ms, site);
    }
    return raise("PW3009", site.span, site.file, { type: "a mailbox", name });
  }

  /** The checked timeout of `receive(ms)`. */
  receiveTimeout(args: Value[], site: CallSite): number {
    if (args.length !== 1) site.fail(`takes 1 argument (a timeout in milliseconds), got ${args.length}`);
    const ms = args[0];
    if (typeof ms !== "number" || !(ms >= 0)) site.fail(`the timeout must be a number of milliseconds ≥ 0, got ${typeName(ms!)}`);
    return ms as number;
  }

  /** What `receive(ms)` gives for the Workers' answer: the message, or PW3062 at the call. */
  received(r: ReceiveResult, ms: number, site: CallSite): Value {
    if (r.ok) return fromJson(r.value);
    return raise("PW3062", site.span, site.file, { name: this.name, ms });
  }
}

/** Member access on a worker object (`self.session`, `mailbox.x`). */
export function opaqueMember(o: PwOpaque, key: string, node: Node, file: string): Value | undefined {
  if (o instanceof PwSelf || o instanceof PwSession || o instanceof PwMailbox) return o.member(key, node, file);
  if (o instanceof PwMailboxes) return o.member(key);
  return undefined;
}

/** A method call on a worker object (`self.delegate(…)`, `mailbox.send(…)`). */
export function opaqueCall(o: PwOpaque, name: string, args: Value[], site: CallSite): Value | undefined {
  if (o instanceof PwSelf || o instanceof PwMailbox || o instanceof PwPending) return o.call(name, args, site);
  return undefined;
}

/** `await v` / `v.await`: joins a delegation, runs a task; any other value is itself. */
export function awaitValue(rt: Runtime, v: Value, site: CallSite): Value {
  if (v instanceof PwPending) return v.await(site.node, site.file);
  if (v instanceof PwTask) return runTask(rt, v, site);
  return v;
}
