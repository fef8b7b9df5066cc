/**
 * The Interpreter: one program run with its ports and limits. `run()` (run.ts) wraps it
 * with parsing and diagnostics; embedders that already hold an AST use it directly.
 */
import { parse, type Diagnostic, type Program } from "@patchwork/parser";
import { NoAgent } from "./agents/no-agent.js";
import { RuntimeError } from "./errors.js";
import { createNodeHost } from "./host-node.js";
import { Modules, runMain, type ParseFn } from "./modules.js";
import type { Agent, Host } from "./ports.js";
import { isStackOverflow, Runtime, type Limits } from "./runtime.js";
import type { Value } from "./values.js";

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
}

/** Parses an imported module; the first error (if any) becomes the import's failure text. */
export const parseModule: ParseFn = (source, fileName) => {
  const r = parse(source, { fileName });
  const err = r.diagnostics.find((d) => d.severity === "error");
  if (err) {
    const { line, column } = err.span.start;
    return { program: null, error: `${fileName}:${line}:${column}: error[${err.code}]: ${err.message}` };
  }
  return { program: r.program, error: null };
};

export class Interpreter {
  readonly runtime: Runtime;
  private readonly modules: Modules;

  constructor(options: InterpreterOptions = {}) {
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
  }

  /**
   * Runs a program: its top-level statements, else `entry`, `__main__` or `main`.
   * Returns the program's value; throws RuntimeError for user errors.
   */
  run(program: Program, options: { fileName?: string; entry?: string } = {}): Value {
    const fileName = options.fileName ?? "<input>";
    const rt = this.runtime;
    try {
      return runMain(this.modules, rt, program, fileName, options.entry);
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
