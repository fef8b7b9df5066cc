/**
 * Loading a module: hoist its items (functions, traits, types, imports) into the module
 * frame, compile its top-level statements, and, for the main program, pick what to run
 * (language.md §1, §8).
 */
import { realpathSync } from "node:fs";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import type { Expr, FunDecl, ImportDecl, Program, Stmt, TopLevel, TraitDecl } from "@patchwork/parser";
import { STD_MODULES } from "./builtins/index.js";
import { callValue } from "./compiler/call.js";
import { Scope, type Binding, type FnCtx, type ModuleCtx, type ModuleLoader } from "./compiler/scope.js";
import { generateBody } from "./compiler/codegen.js";
import { compileExprStatement, compileStatements } from "./compiler/stmt.js";
import { checkEntryArgs, convertArgs, defaultEntry, findEntry, listEntries, type EntryArgs } from "./entries.js";
import { PwPending, PwTask, PwWorkerFn, runTask } from "./workers/objects.js";
import { CallSite } from "./builtins/types.js";
import type { StmtFn } from "./compiler/types.js";
import { raise } from "./errors.js";
import { checkAssignable } from "./types/check.js";
import { markUnexported, unexportedHint } from "./module-objects.js";
import { NORMAL, RETURN, type Runtime } from "./runtime.js";
import { fromJson, PwFunction, type CompiledFunction, type PwObject, type ResumableFunction, type Value } from "./values.js";

export type ParseFn = (source: string, fileName: string) => { program: Program | null; error: string | null };

function isItem(t: TopLevel): t is Exclude<TopLevel, Stmt> | (Stmt & { kind: "TypeDecl" }) {
  return t.kind === "FunDecl" || t.kind === "TraitDecl" || t.kind === "TypeDecl" || t.kind === "Import";
}

/** Compiles a function body on its first call. */
function functionCompiler(m: ModuleCtx): (fn: PwFunction) => CompiledFunction {
  return (fn) => {
    const decl = fn.decl;
    const ctx: FnCtx = { size: 0, isModule: false, returnType: decl.returnType, returnScope: m.scope };
    const scope = new Scope(m.scope, ctx);
    for (const p of decl.params) scope.declare(p.name);
    const cx = { m, scope, loops: 0 };
    const stmts = givesLastValue(decl) ? implicitReturn(decl.body.statements) : decl.body.statements;
    const body = m.rt.codegen ? generateBody(stmts, cx) : compileStatements(stmts, cx);
    return { size: ctx.size, paramCount: decl.params.length, body };
  };
}

/**
 * Workers and the `@skill` / `@command` entries give back their last expression statement when
 * they do not `return` (the reference's workers end with the think whose answer they give back,
 * and its skills with the `self.delegate([…]).await` of such workers: decision 0012).
 */
export function givesLastValue(decl: FunDecl): boolean {
  return decl.flavor === "worker" || decl.annotations.some((a) => a.name === "skill" || a.name === "command");
}

/**
 * A worker's value is its `return` value, or else the value of its last statement when that
 * is an expression (the reference's workers end with the think whose answer they give back).
 */
export function implicitReturn(stmts: Stmt[]): Stmt[] {
  const last = stmts[stmts.length - 1];
  if (!last || last.kind !== "ExprStmt") return stmts;
  // A worker called as the last statement still runs: its value is returned like any other.
  const e = last.expr;
  const value: Expr = e.kind === "Call" ? { kind: "Await", operand: e, postfix: false, span: e.span } : e;
  return [...stmts.slice(0, -1), { kind: "Return", value, span: last.span }];
}

/**
 * The key of a module file: its real path, so that one file reached through a symlink and
 * through its own path (or two symlinks) loads once. A path that does not resolve on disk
 * (a host with virtual files) is its own key.
 */
export function moduleKey(abs: string): string {
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** The file an import of `path` from a module in `fromDir` loads. */
export function importPath(path: string, fromDir: string): string {
  const abs = isAbsolute(path) ? path : resolve(fromDir, path);
  return extname(abs) === "" ? abs + ".pw" : abs;
}

/**
 * The files a program's imports load (`importPath` of each), in order: what the CLI's parse
 * cache looks up before a run (docs/cli.md). `dir` is the module's directory (ModuleCtx.dir).
 */
export function importedFiles(program: Program, dir: string): string[] {
  const files: string[] = [];
  for (const it of program.body) {
    if (it.kind !== "Import") continue;
    if (it.form === "siblings") for (const name of it.names) files.push(importPath(`./${name}.pw`, dir));
    else if (it.form !== "module" && it.source !== null) files.push(importPath(it.source, dir));
  }
  return files;
}

/** The directory a module's imports are resolved from (see Modules.create). */
export function moduleDir(fileName: string, cwd: string): string {
  return fileName.startsWith("<") ? cwd : dirname(resolve(fileName));
}

/**
 * Imports nested deeper than this (a imports b imports c …) are PW3040 at the import that goes
 * too deep: each level holds a module being loaded on the JS stack, and the innermost one
 * still needs room to parse.
 */
export const MAX_IMPORT_DEPTH = 100;

export class Modules implements ModuleLoader {
  private readonly cache = new Map<string, ModuleCtx>();
  /** Every program loaded (the main one first), to find the file of a node after the fact. */
  private readonly programs: { program: Program; fileName: string }[] = [];
  private importDepth = 0;
  /** Set while a resumable task runs (run-task.ts): gives each user function its resumable form's compiler. */
  resumer: ((m: ModuleCtx) => (fn: PwFunction) => ResumableFunction | null) | null = null;
  constructor(
    private readonly rt: Runtime,
    private readonly parse: ParseFn,
  ) {}

  /**
   * Creates a module, hoists its items and compiles its top-level statements. With `base`
   * (a session's previous program), the module continues that one: same frame, and a scope
   * nested in its scope, so every name it declared stays visible and may be redeclared.
   */
  create(
    program: Program,
    fileName: string,
    register?: (m: ModuleCtx) => void,
    base?: ModuleCtx,
  ): { m: ModuleCtx; body: StmtFn; hasStatements: boolean } {
    const fn: FnCtx = base?.fn ?? { size: 0, isModule: true, returnType: null, returnScope: null };
    this.programs.push({ program, fileName });
    const m: ModuleCtx = {
      fileName,
      // File names are paths as the user gave them (relative to the process), not to the
      // program's working directory; a pseudo name like `<input>` imports from the cwd.
      dir: moduleDir(fileName, this.rt.cwd),
      rt: this.rt,
      G: base?.G ?? [],
      scope: new Scope(base?.scope ?? null, fn),
      fn,
      exports: null,
      defaultExport: null,
      items: new Map(),
      loader: this,
    };
    // Registered before its imports load, so a cycle sees this module (items hoisted).
    register?.(m);
    const items = program.body.filter(isItem);
    for (const it of items) this.declareItem(it, m);
    for (const it of items) if (it.kind === "Import") this.runImport(it, m);
    const stmts = program.body.filter((t): t is Stmt => !isItem(t));
    const body = compileTopLevel(stmts, m, this.rt);
    return { m, body, hasStatements: stmts.length > 0 };
  }

  private bind(m: ModuleCtx, name: string, node: TopLevel, value: Value): Binding {
    if (m.scope.hasOwn(name)) raise("PW3003", node.span, m.fileName, { name });
    const b = m.scope.declare(name);
    m.G[b.slot] = value;
    return b;
  }

  private declareItem(it: TopLevel, m: ModuleCtx): void {
    switch (it.kind) {
      case "FunDecl":
        return this.exportItem(it, m, this.bind(m, it.name, it, this.functionValue(it.name, it, m)));
      case "TraitDecl":
        return this.exportItem(it, m, this.bind(m, it.name, it, this.traitObject(it, m)));
      case "TypeDecl":
        m.scope.declareType(it.name, it.type);
        return;
      case "Import":
        for (const name of importedNames(it)) this.bind(m, name, it, null);
        return;
    }
  }

  private exportItem(it: FunDecl | TraitDecl, m: ModuleCtx, b: Binding): void {
    m.items.set(it.name, b);
    if (it.exported || it.isDefault) (m.exports ??= new Map()).set(it.name, b);
    if (it.isDefault) m.defaultExport = b;
  }

  private traitObject(t: TraitDecl, m: ModuleCtx): PwObject {
    const obj: PwObject = new Map();
    for (const meth of t.methods) obj.set(meth.name, this.functionValue(`${t.name}.${meth.name}`, meth, m));
    return obj;
  }

  /** A fun, skill or task is a function; a worker wraps one (calling it makes a task). */
  private functionValue(name: string, decl: FunDecl, m: ModuleCtx): Value {
    const fn = new PwFunction(name, decl, functionCompiler(m), this.resumer?.(m) ?? null);
    return decl.flavor === "worker" ? new PwWorkerFn(fn, m.fileName) : fn;
  }

  private runImport(it: ImportDecl, m: ModuleCtx): void {
    const set = (name: string, v: Value) => {
      m.G[m.scope.lookup(name)!.slot] = v;
    };
    switch (it.form) {
      case "module": {
        const name = it.path.join(".");
        if (it.path[0] !== "std" || it.path.length !== 2 || !STD_MODULES[it.path[1]!])
          raise("PW3041", it.span, m.fileName, { name });
        return;
      }
      case "siblings": // importedFiles must follow every path taken here
        for (const name of it.names) set(name, this.objectOf(this.loadFrom(`./${name}.pw`, m, it)));
        return;
      case "default":
        set(it.names[0]!, this.objectOf(this.loadFrom(it.source!, m, it)));
        return;
      case "named": {
        const mod = this.loadFrom(it.source!, m, it);
        const obj = this.objectOf(mod);
        for (const name of it.names) {
          const v = obj.get(name);
          if (v === undefined) raise("PW3042", it.span, m.fileName, { module: it.source!, name, hint: unexportedHint(obj, name) });
          set(name, v);
        }
        return;
      }
    }
  }

  private loadFrom(path: string, m: ModuleCtx, it: ImportDecl): ModuleCtx {
    if (this.importDepth >= MAX_IMPORT_DEPTH) {
      raise("PW3040", it.span, m.fileName, { name: path, detail: `imports nested more than ${MAX_IMPORT_DEPTH} deep` });
    }
    this.importDepth++;
    try {
      return this.load(path, m.dir);
    } catch (e) {
      if (e instanceof ImportFailure) raise("PW3040", it.span, m.fileName, { name: path, detail: e.message });
      // The stack ran out while this import ran: at the innermost call, else at the import.
      if (e instanceof RangeError) throw this.rt.fromRangeError(e, it.span, m.fileName);
      throw e;
    } finally {
      this.importDepth--;
    }
  }

  /** The file a node of a loaded program belongs to (an iterative walk: only for errors). */
  fileOf(node: object): string | undefined {
    for (const { program, fileName } of this.programs) {
      const stack: unknown[] = [program];
      while (stack.length > 0) {
        const v = stack.pop();
        if (v === node) return fileName;
        if (Array.isArray(v)) for (const c of v) stack.push(c);
        else if (v !== null && typeof v === "object" && "kind" in v) {
          for (const [k, c] of Object.entries(v)) if (k !== "span" && c !== null && typeof c === "object") stack.push(c);
        }
      }
    }
    return undefined;
  }

  load(path: string, fromDir: string): ModuleCtx {
    const abs = importPath(path, fromDir);
    const key = moduleKey(abs);
    const cached = this.cache.get(key);
    if (cached) return cached;
    let text: string;
    try {
      text = this.rt.host.readFile(abs);
    } catch (e) {
      throw new ImportFailure(e instanceof Error ? e.message : String(e));
    }
    const parsed = this.parse(text, abs);
    if (!parsed.program) throw new ImportFailure(parsed.error ?? "parse error");
    const { m, body } = this.create(parsed.program, abs, (mod) => this.cache.set(key, mod));
    body(m.G);
    return m;
  }

  /** Registers a module under the key of `abs` (see moduleKey). */
  register(abs: string): (m: ModuleCtx) => void {
    const key = moduleKey(abs);
    return (m) => this.cache.set(key, m);
  }

  objectOf(mod: ModuleCtx): PwObject {
    const obj: PwObject = new Map();
    if (mod.exports) {
      for (const [name, b] of mod.exports) obj.set(name, mod.G[b.slot] ?? null);
      markUnexported(obj, mod.fileName, [...mod.items.keys()].filter((name) => !mod.exports!.has(name)));
    } else for (const [name, b] of mod.items) obj.set(name, mod.G[b.slot] ?? null);
    if (mod.defaultExport) obj.set("default", mod.G[mod.defaultExport.slot] ?? null);
    return obj;
  }
}

class ImportFailure extends Error {}

function importedNames(it: ImportDecl): string[] {
  if (it.form === "module") return [];
  return it.names;
}

/** Top-level statements: the value of the last expression statement is the program's value. */
function compileTopLevel(stmts: Stmt[], m: ModuleCtx, rt: Runtime): StmtFn {
  const cx = { m, scope: m.scope, loops: 0 };
  if (rt.codegen) return generateBody(stmts, cx, true);
  const fns: StmtFn[] = [];
  for (const s of stmts) {
    if (s.kind === "ExprStmt") {
      const e = compileExprStatement(s.expr, cx);
      fns.push((f) => {
        rt.lastValue = e(f);
        return NORMAL;
      });
    } else fns.push(compileStatements([s], cx));
  }
  return (f) => {
    for (const fn of fns) {
      const s = fn(f);
      if (s === RETURN) return s;
    }
    return NORMAL;
  };
}

export interface MainOptions {
  /** Item to run (a name, `Trait.method`, or a skill/command name). */
  entry?: string;
  /** Arguments for the entry, as values. */
  args?: Value[];
  /** Arguments for the entry as command-line text, converted to its parameter types. */
  argStrings?: EntryArgs;
  /**
   * The entry is called from outside the program (an MCP tool call): check the number of `args`
   * and each against its parameter's declared type before it runs (PW3065 naming the parameter),
   * and its value against its declared return type (PW3004).
   */
  checkTypes?: boolean;
  /** False: only load the file (items, imports) and run the entry (a worker task). Default true. */
  statements?: boolean;
  /**
   * `entry` came from a command line where it may be the first argument instead
   * (`patchwork run greeter.pw Alice`): when no entry has that name and the file has a
   * default entry, it is that entry's first argument.
   */
  entryMayBeArgument?: boolean;
  /** The first word of the command line, taken as the default entry's first argument because it names no entry (for messages). */
  notAnEntry?: string;
}

/**
 * Runs the main program: top-level statements, then the entry point. The words of a command
 * line (`entryMayBeArgument`: the entry name and its positional arguments) are the program's
 * `args` array, and `planWords` decides, before anything runs, what they mean.
 */
export function runMain(modules: Modules, rt: Runtime, program: Program, fileName: string, opts: MainOptions = {}): Value {
  // null: the words are only `args`; the statements run (this file has some), no entry.
  opts = planMain(rt, program, fileName, opts) ?? { ...opts, entry: undefined, argStrings: undefined };
  // The main program is a module too: a file that imports it back gets it, not a second run.
  const register = fileName.startsWith("<") ? undefined : modules.register(resolve(fileName));
  const { m, body, hasStatements } = modules.create(program, fileName, register);
  if (hasStatements && opts.statements === false) rt.statementsSkipped = true;
  if (hasStatements && opts.statements !== false) {
    const sig = body(m.G);
    if (sig === RETURN) return rt.ret;
    if (!opts.entry) return rt.lastValue;
  }
  return runEntry(rt, m, program, fileName, opts);
}

/**
 * What the words after the file mean (language.md §5), decided from the program's text before
 * anything runs; they are always the program's `args`. When the first names an entry, that
 * entry runs with the rest (after the top-level statements); otherwise, in a file with
 * top-level statements, they are only `args` (null: no entry runs); else they are the default
 * entry's arguments (one without parameters runs as it is; an arity error says that the first
 * word is not an entry); with no default entry either, an error naming the word and listing
 * the file's entries. Without `entryMayBeArgument` (`--entry`, a slash command), `args` holds
 * the entry's positional arguments.
 */
export function planMain(rt: Runtime, program: Program, fileName: string, opts: MainOptions): MainOptions | null {
  const positional = opts.argStrings?.positional ?? [];
  if (!opts.entryMayBeArgument) {
    if (opts.argStrings) rt.programArgs = [...positional];
    return opts;
  }
  const word = opts.entry;
  rt.programArgs = word === undefined ? [...positional] : [word, ...positional];
  const statements = program.body.some((t) => !isItem(t));
  if (word === undefined) return statements ? null : opts;
  const entries = listEntries(program);
  if (findEntry(entries, word)) return opts;
  if (statements) return null;
  const fallback = defaultEntry(entries);
  // A default entry without parameters runs as it is; the words are its `args`.
  if (fallback && fallback.params.length === 0) return { ...opts, entry: undefined, argStrings: undefined, entryMayBeArgument: false };
  if (fallback) {
    const positional = [word, ...(opts.argStrings?.positional ?? [])];
    return { ...opts, entry: undefined, argStrings: { ...opts.argStrings, positional }, entryMayBeArgument: false, notAnEntry: word };
  }
  const list = entries.length > 0 ? `its entries: ${entries.map((e) => e.signature).join(", ")}` : "it has no entries (funs, workers, skills or trait methods)";
  return raise("PW3051", program.span, fileName, { name: word, detail: ` (the file has no top-level statements or default entry that would take '${word}' as an argument); ${list}` });
}

/**
 * Runs the entry of a loaded program (`opts.entry`, else its default entry) with its arguments:
 * what `patchwork run file.pw [entry] [args…]` runs after the top-level statements, and what a
 * REPL session runs for `/run` of a file in the agent panel.
 */
export function runEntry(rt: Runtime, m: ModuleCtx, program: Program, fileName: string, opts: MainOptions): Value {
  const entry = opts.entry;
  const entries = listEntries(program);
  // A command line's words were planned already (planMain).
  const info = entry !== undefined ? findEntry(entries, entry) : defaultEntry(entries);
  if (!info) {
    const name = opts.entry;
    if (name !== undefined) {
      const b = m.scope.lookup(name);
      const v = b ? m.G[b.slot] : undefined;
      if (v instanceof PwFunction || v instanceof PwWorkerFn) return callEntry(rt, v, opts.args ?? [], fileName, name);
      return raise("PW3051", program.span, fileName, { name });
    }
    const offered = entries.filter((e) => e.kind === "skill" || e.kind === "command");
    const detail =
      offered.length > 1
        ? `the file has no top-level statements, no '__main__' or 'main', and several entries (${offered.map((e) => `@${e.kind} ${e.name}`).join(", ")}): name one after the file`
        : "the file has no top-level statements and no '__main__', 'main' or single @skill or @command";
    return raise("PW3050", program.span, fileName, { detail });
  }
  const value = entryValue(m, info.target);
  let args = opts.args ?? [];
  if (opts.argStrings) {
    try {
      args = convertArgs(info, opts.argStrings, (name) => m.scope.lookupType(name)?.type).map(fromJson);
    } catch (e) {
      const note = opts.notAnEntry !== undefined ? ` ('${opts.notAnEntry}' is not an entry of this file, so it was taken as the first argument of ${info.name})` : "";
      return raise("PW3065", info.decl.span, fileName, { detail: (e as Error).message + note });
    }
  }
  if (!(value instanceof PwFunction || value instanceof PwWorkerFn)) return raise("PW3051", program.span, fileName, { name: info.name });
  if (!opts.checkTypes) return callEntry(rt, value, args, fileName, info.name);
  const problem = opts.argStrings ? null : checkEntryArgs(info, args, m.scope);
  if (problem) return raise("PW3065", problem.span, fileName, { detail: problem.detail });
  const result = callEntry(rt, value, args, fileName, info.name);
  const returnType = info.decl.returnType;
  // Without an agent a think gives its prompt, not a value of the declared type: it passes, and
  // the caller sees the prompt, as `run` shows it (language.md §7).
  if (returnType) checkAssignable(returnType, m.scope, `the value of '${info.name}'`, returnType.span, fileName, true)(result);
  return result;
}

/** The value of an item or trait method (`Trait.method`) of a module. */
function entryValue(m: ModuleCtx, target: string): Value | undefined {
  const [item, method] = target.split(".");
  const b = m.scope.lookup(item!);
  const v = b ? m.G[b.slot] : undefined;
  if (method === undefined) return v;
  return v instanceof Map ? v.get(method) : undefined;
}

/**
 * Runs an entry in place: a worker entry runs its body directly, as a function. Every worker
 * task runs this way too, on its thread. A value that is itself a worker task or a pending
 * delegation is awaited, as an async function's returned promise is: `var r = helper(x);
 * return r` gives helper's value, not a task that nobody will start (docs/workers.md).
 */
function callEntry(rt: Runtime, v: PwFunction | PwWorkerFn, args: Value[], fileName: string, name: string): Value {
  if (rt.deferEntry) {
    // A resumable task: its driver runs the entry (run-parsed.ts, runTaskResumable).
    rt.deferEntry({ fn: v, args, fileName, name });
    return null;
  }
  rt.entryRan = name;
  const fn = v instanceof PwWorkerFn ? v.fn : v;
  let value = callValue(rt, fn, args, fn.decl, fileName, `'${name}'`);
  for (;;) {
    if (value instanceof PwTask && !value.started) value = runTask(rt, value, new CallSite(rt, fileName, fn.decl.span, name, fn.decl));
    else if (value instanceof PwPending) value = value.await(fn.decl, fileName);
    else return value;
  }
}
