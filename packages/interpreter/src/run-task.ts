/**
 * A worker task run resumably (decision 0016): `@patchwork/interpreter/tasks`, loaded by task
 * threads only (a run without workers never loads it: docs/benchmarks.md, start-up).
 */
import type { Diagnostic, Program } from "@patchwork/parser";
import { callEntryResumable, resumableStatements, type Resumable } from "./compiler/resumable.js";
import { Scope, type FnCtx, type ModuleCtx } from "./compiler/scope.js";
import { InterpreterCore } from "./interpreter-core.js";
import { givesLastValue, implicitReturn, type ParseFn } from "./modules.js";
import { entryOf, failedRun, type RunOptions, type RunResult } from "./run-parsed.js";
import type { Runtime } from "./runtime.js";
import { fromJson, toJson, type PwFunction, type ResumableFunction } from "./values.js";

export type { Resumable, Wait, WaitAnswer } from "./compiler/resumable.js";
export { sharesThread } from "./compiler/shares-thread.js";

/** Compiles a function's resumable form on its first resumable call (null: nothing in it can wait). */
function resumableCompiler(m: ModuleCtx): (fn: PwFunction) => ResumableFunction | null {
  return (fn) => {
    const decl = fn.decl;
    const ctx: FnCtx = { size: 0, isModule: false, returnType: decl.returnType, returnScope: m.scope };
    const scope = new Scope(m.scope, ctx);
    for (const p of decl.params) scope.declare(p.name);
    const stmts = givesLastValue(decl) ? implicitReturn(decl.body.statements) : decl.body.statements;
    const body = resumableStatements(stmts, { m, scope, loops: 0 });
    return body ? { size: ctx.size, paramCount: decl.params.length, body } : null;
  };
}

/**
 * `runParsed` of a worker task (its `entry` with `args`, no top-level statements), resumable:
 * a generator that yields where the task waits for a mailbox message or a delegation without
 * blocking (compiler/resumable.ts) and gives the run's result at its end. Its driver (a thread
 * that carries several tasks) answers each `Wait` with the Workers' result.
 */
export function* runTaskResumable(
  program: Program,
  diagnostics: readonly Diagnostic[],
  options: Omit<RunOptions, "program">,
  parseModule: ParseFn,
): Resumable<RunResult> {
  const fileName = options.fileName ?? "<input>";
  const diags: Diagnostic[] = diagnostics.map((d) => ({ ...d, fileName: d.fileName ?? fileName }));
  if (diags.some((d) => d.severity === "error")) return { value: null, output: "", diagnostics: diags, ok: false };
  const interp = new InterpreterCore(options, parseModule);
  const rt = interp.runtime;
  interp.modules.resumer = resumableCompiler;
  const out: string[] = [];
  rt.captures.push(out);
  const deferred: { entry: Parameters<NonNullable<Runtime["deferEntry"]>>[0] | null } = { entry: null };
  rt.deferEntry = (e) => {
    deferred.entry = e;
  };
  try {
    interp.run(program, { fileName, entry: options.entry, args: options.args?.map(fromJson), statements: false });
    rt.deferEntry = null;
    const call = deferred.entry;
    const value = call ? yield* callEntryResumable(rt, call.fn, call.args, call.fileName, call.name) : null;
    return { value: toJson(value), output: out.join(""), diagnostics: diags, ok: true, ...entryOf(rt) };
  } catch (caught) {
    return failedRun(rt, caught, program, fileName, diags, out);
  } finally {
    rt.captures.length = 0;
    interp.finish();
  }
}

