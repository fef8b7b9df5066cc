/**
 * Mutable state of one running program, shared by every compiled closure:
 * the ports, limits, call depth, step counter, output captures, `$?`, and the
 * slot through which `return` hands its value to the call (completion signals
 * are plain numbers, so ordinary control flow never throws).
 */
import type { Node, Span } from "@patchwork/parser";
import { raise, runtimeError, type RuntimeError } from "./errors.js";
import type { Agent, Host, PwEvent, Workers } from "./ports.js";
import { NestingError, type PwFunction, type Value } from "./values.js";
import type { PwWorkerFn } from "./workers/worker-fn.js";

/** Completion signals returned by compiled statements. */
export const NORMAL = 0;
export const BREAK = 1;
export const CONTINUE = 2;
export const RETURN = 3;

export interface Limits {
  /** Maximum nested calls (and nested `do` children). Default 2000. */
  maxDepth?: number;
  /** Maximum steps (loop iterations + calls); unlimited by default. */
  maxSteps?: number;
  /** Wall-clock limit in milliseconds; unlimited by default. */
  timeoutMs?: number;
  /**
   * Most elements an array (and entries an object) may hold: growing past it (an index far
   * past the end, `push`, `+`, a materialised range, `split`, `json`) is PW3073. Default
   * 16,777,216 (2^24, the engine's own maximum for objects); at most that.
   */
  maxArrayLength?: number;
  /**
   * Longest string (UTF-16 code units) that concatenation, interpolation, `repeat`, `pad*`,
   * `replace` and `join` may build: longer is PW3073. Default and maximum: the engine's limit.
   */
  maxStringLength?: number;
}

export const DEFAULT_MAX_DEPTH = 2000;

/**
 * The engine's stack overflow: a RangeError, or a SyntaxError when the overflow hits while a
 * regular expression is compiled. Only the message tells them from other errors.
 */
export function isStackOverflow(e: unknown): boolean {
  return (e instanceof RangeError || e instanceof SyntaxError) && e.message.endsWith("Maximum call stack size exceeded");
}
export const DEFAULT_MAX_ARRAY_LENGTH = 2 ** 24;
/** The engine's maximum string length in UTF-16 code units (V8 on 64-bit: 2^29 - 24). */
export const MAX_STRING_LENGTH = 2 ** 29 - 24;
/** Builtins charge one step per this many elements or characters they process. */
const WORK_PER_STEP = 1024;

export class Runtime {
  readonly host: Host;
  readonly agent: Agent;
  readonly cwd: string;
  readonly askUser: boolean;
  readonly maxDepth: number;
  readonly maxArrayLength: number;
  readonly maxStringLength: number;
  private readonly maxSteps: number;
  private readonly deadline: number;
  private readonly timeoutMs: number;
  depth = 0;
  steps = 0;
  /** `steps` value at which `check` runs next (step budget or time check). */
  nextCheck: number;
  /** Value carried by a RETURN signal. */
  ret: Value = null;
  /** Value of the last top-level expression statement (the program's value). */
  lastValue: Value = null;
  /** The program's `args`: the words after the file on the command line (strings). */
  programArgs: Value[] = [];
  /** The name of the entry the run called (its value is the run's result), or null. */
  entryRan: string | null = null;
  /** The main file's top-level statements did not run (a worker task): a top-level `var` read is then undefined. */
  statementsSkipped = false;
  /** Exit status of the last shell command (`$?`). */
  lastStatus = 0;
  /** Active output captures (run() output, running `do` children). */
  captures: string[][] = [];
  /** Think ids for events. */
  thinkCounter = 0;
  /** Loop numbers for events (`loop-start`…: compiler/loop-progress.ts). */
  loopCounter = 0;
  /**
   * A loop item not told yet (loop 0: none), when the last one was, and when the clock is read
   * next (compiler/loop-progress.ts, loopItem).
   */
  heldLoop = 0;
  heldIndex = 0;
  itemAt = 0;
  checkAt = 0;
  itemCheck = 1;
  itemEvery = 1;
  readonly events: boolean;
  /** Function bodies and top levels are compiled to JS (codegen.ts); false: closures only. */
  readonly codegen: boolean;
  /** The innermost call being made (used to position a JS stack overflow). */
  callSite: Node | null = null;
  /**
   * Set while a resumable task loads (run-task.ts): the entry is handed to it instead of
   * being called, and its driver runs it in resumable form.
   */
  deferEntry: ((entry: { fn: PwFunction | PwWorkerFn; args: Value[]; fileName: string; name: string }) => void) | null = null;
  /** Runs worker tasks and carries mailbox messages (set by the Interpreter). */
  workers!: Workers;
  /** The file of a node of any loaded module (set by the module loader; used for errors only). */
  fileOf: ((node: Node) => string | undefined) | null = null;

  constructor(opts: { host: Host; agent: Agent; cwd: string; limits?: Limits; askUser?: boolean; codegen?: boolean }) {
    this.codegen = opts.codegen ?? true;
    this.host = opts.host;
    this.agent = opts.agent;
    this.cwd = opts.cwd;
    this.askUser = opts.askUser ?? false;
    const l = opts.limits ?? {};
    this.maxDepth = l.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.maxArrayLength = Math.min(l.maxArrayLength ?? DEFAULT_MAX_ARRAY_LENGTH, DEFAULT_MAX_ARRAY_LENGTH);
    this.maxStringLength = Math.min(l.maxStringLength ?? MAX_STRING_LENGTH, MAX_STRING_LENGTH);
    this.maxSteps = l.maxSteps ?? Infinity;
    this.timeoutMs = l.timeoutMs ?? Infinity;
    this.deadline = Number.isFinite(this.timeoutMs) ? Date.now() + this.timeoutMs : Infinity;
    this.nextCheck = this.computeNext();
    this.events = typeof opts.host.event === "function";
  }

  private computeNext(): number {
    const timeCheck = Number.isFinite(this.deadline) ? this.steps + 1024 : Infinity;
    return Math.min(this.maxSteps + 1, timeCheck);
  }

  /** Slow path of the step counter: budget and clock. */
  check(node: Node, fileName: string): void {
    if (this.steps > this.maxSteps) raise("PW3071", node.span, fileName, { limit: this.maxSteps });
    if (Date.now() > this.deadline) raise("PW3072", node.span, fileName, { limit: this.timeoutMs });
    this.nextCheck = this.computeNext();
  }

  /**
   * Work done (or about to be done) by a builtin over `units` elements or characters: one
   * step per 1024 units, so the step budget and the clock are checked inside long builtin
   * work too (small calls cost nothing).
   */
  charge(units: number, node: Node, fileName: string): void {
    if (units < WORK_PER_STEP) return;
    this.steps += Math.floor(units / WORK_PER_STEP);
    if (this.steps >= this.nextCheck) this.check(node, fileName);
  }

  /** PW3073 unless an array (or object) of `length` elements is within the limit. */
  checkArrayLength(length: number, what: string, span: Span, fileName: string): void {
    if (length > this.maxArrayLength)
      raise("PW3073", span, fileName, { detail: `${what} would have ${length} elements (the limit is ${this.maxArrayLength})` });
  }

  /** PW3073 unless a string of `length` UTF-16 code units is within the engine's limit. */
  checkStringLength(length: number, what: string, span: Span, fileName: string): void {
    if (length > this.maxStringLength)
      raise("PW3073", span, fileName, { detail: `${what} would be ${length} characters long (the limit is ${this.maxStringLength})` });
  }

  /** Milliseconds left before the time limit (Infinity without one). */
  timeLeft(): number {
    return Number.isFinite(this.deadline) ? Math.max(0, this.deadline - Date.now()) : Infinity;
  }

  /** Clock check before slow operations (shell commands, thinks). */
  checkTime(node: Node, fileName: string): void {
    if (Date.now() > this.deadline) raise("PW3072", node.span, fileName, { limit: this.timeoutMs });
  }

  tooDeep(node: Node, fileName: string): never {
    this.depth--;
    raise("PW3070", node.span, fileName, { limit: this.maxDepth });
  }

  /**
   * Converts a JS RangeError where it is caught: a string, array or object too large for the
   * engine (or a value nested too deeply) becomes PW3073 at `span`. A stack overflow is
   * returned unchanged: so close to the end of the stack even building an error can overflow
   * again (V8 even reports a regular expression compiled there as a SyntaxError), so it
   * unwinds to the run, where `stackOverflow` turns it into PW3070.
   */
  fromRangeError(e: RangeError, span: Span, fileName: string): Error {
    if (e instanceof NestingError) return runtimeError("PW3073", span, fileName, { detail: e.message });
    if (isStackOverflow(e)) return e;
    const detail = e.message.includes("string")
      ? `a string longer than the engine's limit of ${MAX_STRING_LENGTH} characters`
      : `an array or object with more than ${this.maxArrayLength} elements`;
    return runtimeError("PW3073", span, fileName, { detail });
  }

  /** The run's PW3070 for a JavaScript stack overflow, at the innermost call being made. */
  stackOverflow(span: Span, fileName: string): RuntimeError {
    const detail = `the JavaScript stack ran out before the limit of ${this.maxDepth} nested calls`;
    const site = this.callSite;
    const file = site ? (this.fileOf?.(site) ?? fileName) : fileName;
    return runtimeError("PW3070", site?.span ?? span, file, { limit: this.maxDepth, detail });
  }

  write(text: string): void {
    if (text.length === 0) return;
    this.host.write(text);
    const caps = this.captures;
    for (let i = 0; i < caps.length; i++) caps[i]!.push(text);
  }

  log(text: string): void {
    this.host.log(text);
  }

  emit(event: PwEvent): void {
    if (!this.host.event) return;
    // A loop item not told yet goes first (unless its loop's end makes it stale).
    if (this.heldLoop !== 0) {
      const loop = this.heldLoop;
      this.heldLoop = 0;
      if (event.type !== "loop-end" || event.loop !== loop) this.host.event({ type: "loop-item", loop, index: this.heldIndex });
    }
    this.host.event(event);
  }
}
