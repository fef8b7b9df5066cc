/**
 * The interpreter's core: one program run with its ports and limits, given how to parse the
 * files it imports. `Interpreter` (interpreter.ts) is this with the parser; the core exists so
 * that a caller holding ASTs already (the CLI's parse cache, docs/cli.md) runs a program
 * without loading the parser at all (it is most of the start-up: docs/benchmarks.md).
 */
import type { Diagnostic, Program } from "@patchwork/parser";
import { NoAgent } from "./agents/no-agent.js";
import { RuntimeError } from "./errors.js";
import { createNodeHost } from "./host-node.js";
import { Modules, planMain, runEntry, runMain, type MainOptions, type ParseFn } from "./modules.js";
import type { ModuleCtx } from "./compiler/scope.js";
import type { Agent, Host, JsonValue, WorkerTask, Workers } from "./ports.js";
import { InThreadWorkers, type DelegateNote } from "./workers/in-thread.js";
import { isStackOverflow, RETURN, Runtime, type Limits } from "./runtime.js";
import { fromJson, toJson, type Value } from "./values.js";

export interface InterpreterOptions {
  /** Answers think/ask blocks. Default: NoAgent (`{__think_prompt}` values). */
  agent?: Agent;
  /** Files, shell, output, events. Default: createNodeHost({cwd}). */
  host?: Host;
  /** Working directory of the program (paths, shell). Default: process.cwd(). */
  cwd?: string;
  limits?: Limits;
  /** `ask` blocks read a line from `host.readLine` instead of asking the agent. */
  askUser?: boolean;
  /**
   * Compile function bodies and top levels to JavaScript (the fast tier; default true).
   * False runs everything through the closure compiler (same semantics, slower).
   */
  codegen?: boolean;
  /**
   * Runs worker tasks and carries mailbox messages. Default: in-thread (tasks run one after
   * another at `await`; see workers/in-thread.ts). `@patchwork/agent` gives each its own thread.
   */
  workers?: Workers;
  /** Keep `self.session.dir` after the run (default: removed when the run ends, if created). */
  keepSession?: boolean;
  /** Told of the in-thread workers' task groups and tasks (for progress: workers/in-thread.ts). */
  onDelegate?: (note: DelegateNote) => void;
}

export class InterpreterCore {
  readonly runtime: Runtime;
  readonly modules: Modules;
  /** The last program run by `continue` (the next one continues it). */
  private previous: ModuleCtx | null = null;

  private readonly ownWorkers: InThreadWorkers | null;
  /** Programs by file name (the main one, worker files loaded in this thread). */
  private readonly programs = new Map<string, Program>();

  constructor(
    private readonly options: InterpreterOptions,
    /** Parses imported modules and worker files. */
    private readonly parseModule: ParseFn,
  ) {
    const cwd = options.cwd ?? process.cwd();
    this.runtime = new Runtime({
      host: options.host ?? createNodeHost({ cwd }),
      agent: options.agent ?? new NoAgent(),
      cwd,
      limits: options.limits,
      askUser: options.askUser,
      codegen: options.codegen,
    });
    this.modules = new Modules(this.runtime, parseModule);
    this.runtime.fileOf = (node) => this.modules.fileOf(node);
    this.ownWorkers = options.workers ? null : new InThreadWorkers((task) => this.runTaskInThread(task), undefined, options.onDelegate ?? null);
    this.runtime.workers = options.workers ?? this.ownWorkers!;
  }

  /** Ends the run: removes the session directory the in-thread workers created (unless kept). */
  finish(): void {
    if (!this.options.keepSession) this.ownWorkers?.cleanup();
  }

  /** A worker task on this thread: a fresh interpreter (workers share no variables) over the same ports. */
  private runTaskInThread(task: WorkerTask): JsonValue {
    let program = this.programs.get(task.fileName);
    if (!program) {
      const parsed = this.parseModule(this.runtime.host.readFile(task.fileName), task.fileName);
      if (!parsed.program) throw new Error(parsed.error ?? "parse error");
      program = parsed.program;
    }
    const sub = new InterpreterCore({ ...this.options, workers: this.runtime.workers }, this.parseModule);
    sub.runtime.captures = this.runtime.captures;
    // Its loops are numbered on from this thread's (their events name the loop by number).
    sub.runtime.loopCounter = this.runtime.loopCounter;
    try {
      return toJson(sub.run(program, { fileName: task.fileName, entry: task.worker, args: task.args.map(fromJson), statements: false }));
    } finally {
      this.runtime.loopCounter = sub.runtime.loopCounter;
    }
  }

  /**
   * Runs a program: its top-level statements, else `entry`, `__main__` or `main`.
   * Returns the program's value; throws RuntimeError for user errors.
   */
  run(program: Program, options: { fileName?: string } & MainOptions = {}): Value {
    const fileName = options.fileName ?? "<input>";
    const rt = this.runtime;
    if (!this.programs.has(fileName)) this.programs.set(fileName, program);
    try {
      return runMain(this.modules, rt, program, fileName, options);
    } catch (e) {
      if (isStackOverflow(e)) throw rt.stackOverflow(program.span, fileName);
      if (e instanceof RangeError) throw rt.fromRangeError(e, program.span, fileName);
      throw e;
    }
  }

  /**
   * A session's next program (a REPL, such as the agent panel's prompts): its items and
   * top-level statements continue the previous `continueWith` program, whose variables,
   * functions, types and imports stay visible (a new declaration shadows an old one). Nothing
   * runs `main` unless `main` is given: then, after the statements, the entry it names (or the
   * program's default entry) runs with its arguments, as `run` does for a file. Throws
   * RuntimeError for user errors; what the program declared before the error stays declared.
   */
  continueWith(program: Program, fileName: string, main?: MainOptions): Value {
    const rt = this.runtime;
    rt.lastValue = null;
    // Its worker tasks run from this program (a REPL's programs are not files to read again).
    this.programs.set(fileName, program);
    try {
      // The words are `args`, and decide the entry, before anything runs (null: statements only).
      const planned = main ? planMain(rt, program, fileName, main) : null;
      const { m, body } = this.modules.create(program, fileName, undefined, this.previous ?? undefined);
      this.previous = m;
      if (body(m.G) === RETURN) return rt.ret;
      return planned ? runEntry(rt, m, program, fileName, planned) : rt.lastValue;
    } catch (e) {
      if (isStackOverflow(e)) throw rt.stackOverflow(program.span, fileName);
      if (e instanceof RangeError) throw rt.fromRangeError(e, program.span, fileName);
      throw e;
    }
  }
}

/** A runtime error as a Diagnostic. */
export function runtimeDiagnostic(e: RuntimeError): Diagnostic {
  return { code: e.code, severity: "error", message: e.message, span: e.span, fileName: e.fileName };
}

/**
 * An imported module's parse as the loader takes it: the first error (if any) becomes the
 * import's failure text.
 */
export function importedModule(r: { program: Program; diagnostics: readonly Diagnostic[] }, fileName: string): ReturnType<ParseFn> {
  const err = r.diagnostics.find((d) => d.severity === "error");
  if (err) {
    const { line, column } = err.span.start;
    return { program: null, error: `${fileName}:${line}:${column}: error[${err.code}]: ${err.message}` };
  }
  return { program: r.program, error: null };
}
