/**
 * Shell commands (language.md §6; docs/security.md). The AST's words are turned back into one
 * `/bin/sh -c` command string, but **no value is ever spliced into that text**:
 * - literal text (`ShellText.raw`) is passed exactly as written, so globbing, pipes,
 *   redirects, `~`, `$(…)` and sh's own `$VAR` keep working;
 * - every interpolated value is handed to sh as data, in an environment variable of the
 *   command (`PW_1`, `PW_2`, … numbered per run), and only a reference to it is spliced,
 *   quoted for the context the parser found it in: `"${PW_1}"` in a bare word, `${PW_1}`
 *   inside double quotes (at any depth of `$(…)` and backquotes) and in `$((…))`. sh expands
 *   a parameter once and never parses its value as code, so a value cannot be executed,
 *   whatever it contains; the quoting only keeps it one word (no splitting, no globbing);
 * - an array alone as a bare word, or spread with `$@{…}`, gives one word per element;
 *   elsewhere (inside double quotes, or part of a longer word) its elements joined with
 *   spaces, as sh's `"$*"`. In `$((…))` a value must be an integer;
 * - a value sh cannot receive (a NUL byte) is a runtime error at the interpolation;
 * - `$name` where `name` is not a Patchwork variable in scope is handed to sh as written,
 *   so environment variables such as `$HOME` keep working.
 */
import type { Node, ShellCommand, ShellExpr, ShellInterp, ShellList, ShellRedirect, ShellStmt, ShellWord } from "@patchwork/parser";
import { raise } from "../errors.js";
import { shellQuote } from "../shell-quote.js";
import type { ShellResult } from "../ports.js";
import type { Runtime } from "../runtime.js";
import { toText, type Value } from "../values.js";
import { compileExpr } from "./expr.js";
import type { Cx } from "./scope.js";
import type { StmtFn } from "./types.js";

/** The values of one run of a command: its environment variables `PW_n`. */
interface Bindings {
  env: Record<string, string>;
  n: number;
}

type Build = (f: Value[], b: Bindings) => string;

export { shellQuote };

/** Escapes a string so it stays literal inside sh double quotes. */
export function shellEscapeDouble(s: string): string {
  return s.replace(/[\\"$`]/g, (c) => "\\" + c);
}

/** The most characters of one value shown in a command (error messages, events); the rest is counted. */
const SHOWN_VALUE_MAX = 200;

/**
 * The command as a person should read it (error messages, events): each reference replaced
 * by its value, quoted for its context, a value over `SHOWN_VALUE_MAX` characters cut (saying
 * how long it was), so that a failed command never echoes megabytes. Only shown, never run.
 */
export function shownCommand(command: string, env: Record<string, string>): string {
  return command.replace(/"\$\{(PW_\d+)\}"|\$\{(PW_\d+)\}/g, (m, quoted: string | undefined, plain: string | undefined) => {
    const full = env[(quoted ?? plain)!];
    if (full === undefined) return m;
    const cut = full.length > SHOWN_VALUE_MAX;
    const v = cut ? full.slice(0, SHOWN_VALUE_MAX) : full;
    const shown = quoted ? shellQuote(v) : shellEscapeDouble(v);
    return cut ? `${shown}…(${full.length} characters)` : shown;
  });
}

function constant(s: string): Build {
  return () => s;
}

function concat(parts: Build[]): Build {
  if (parts.length === 1) return parts[0]!;
  return (f, b) => {
    let s = "";
    for (let i = 0; i < parts.length; i++) s += parts[i]!(f, b);
    return s;
  };
}

/** Binds one value to the next `PW_n` and returns that reference, `${PW_n}`. */
function bind(b: Bindings, text: string, p: ShellInterp, file: string): string {
  if (text.includes("\0")) {
    raise("PW3025", p.span, file, {
      detail: `${p.raw} contains a NUL byte, which no command argument can hold (remove it first, e.g. with replace())`,
    });
  }
  const name = `PW_${++b.n}`;
  b.env[name] = text;
  return "${" + name + "}";
}

const joined = (x: Value): string => (Array.isArray(x) ? x.map(toText).join(" ") : toText(x));

function integer(x: Value, p: ShellInterp, file: string): string {
  if (typeof x === "number" && Number.isInteger(x)) return String(x);
  if (typeof x === "string" && /^[+-]?[0-9]+$/.test(x)) return x;
  const shown = (typeof x === "string" ? JSON.stringify(x) : toText(x)).slice(0, 60);
  return raise("PW3025", p.span, file, { detail: `${p.raw} stands in $((…)), so it must be an integer, got ${shown}` });
}

/** `words`: an array may become several words (not in a redirect target). */
function compileInterp(p: ShellInterp, cx: Cx, words: boolean): Build {
  const v = compileExpr(p.expr, cx);
  const file = cx.m.fileName;
  if (p.context === "arith") return (f, b) => bind(b, integer(v(f), p, file), p, file);
  if (p.context === "double") return (f, b) => bind(b, joined(v(f)), p, file);
  const each = words && (p.alone || p.spread);
  return (f, b) => {
    const x = v(f);
    if (Array.isArray(x) && each) return x.map((el) => `"${bind(b, toText(el), p, file)}"`).join(" ");
    return `"${bind(b, joined(x), p, file)}"`;
  };
}

function compileWord(w: ShellWord, cx: Cx, words = true): Build {
  return concat(
    w.parts.map((p): Build => {
      if (p.kind === "ShellText") return constant(p.raw);
      if (p.expr.kind === "Ident" && !cx.scope.lookup(p.expr.name)) return constant(p.raw);
      return compileInterp(p, cx, words);
    }),
  );
}

function compileRedirect(r: ShellRedirect, cx: Cx): Build {
  const fd = r.fd === null ? "" : String(r.fd);
  if (!r.target) return constant(`${fd}${r.op}${r.dupFd ?? ""}`);
  const t = compileWord(r.target, cx, false);
  if (r.op === "&>") return (f, b) => `>${t(f, b)} 2>&1`;
  return (f, b) => `${fd}${r.op}${t(f, b)}`;
}

function compileCommand(c: ShellCommand, cx: Cx): Build {
  const parts = [...c.words.map((w) => compileWord(w, cx)), ...c.redirects.map((r) => compileRedirect(r, cx))];
  return (f, b) => parts.map((p) => p(f, b)).join(" ");
}

export function compileShellList(list: ShellList, cx: Cx): Build {
  const pipeline = (p: ShellList["first"]): Build => {
    const cmds = p.commands.map((c) => compileCommand(c, cx));
    return (f, b) => cmds.map((c) => c(f, b)).join(" | ");
  };
  const parts: Build[] = [pipeline(list.first)];
  for (const r of list.rest) {
    parts.push(constant(r.op === ";" ? "; " : ` ${r.op} `));
    parts.push(pipeline(r.pipeline));
  }
  return concat(parts);
}

/** One run of a command: its text (references only) and the values they name. */
interface Built {
  command: string;
  env: Record<string, string>;
}

function buildCommand(build: Build, f: Value[]): Built {
  const b: Bindings = { env: {}, n: 0 };
  const command = build(f, b);
  return { command, env: b.env };
}

export function runShell(rt: Runtime, c: Built, node: Node, file: string): ShellResult {
  rt.checkTime(node, file);
  if (c.command.includes("\0")) raise("PW3025", node.span, file, { detail: "the command text contains a NUL byte" });
  const left = rt.timeLeft();
  const at = { span: node.span, fileName: file };
  const options = Number.isFinite(left) ? { cwd: rt.cwd, env: c.env, timeoutMs: left, at } : { cwd: rt.cwd, env: c.env, at };
  const started = rt.events ? performance.now() : 0;
  const r = rt.host.shell(c.command, options);
  const durationMs = rt.events ? performance.now() - started : 0;
  rt.checkTime(node, file); // the command may have used up (or been stopped at) the time limit
  rt.lastStatus = r.status;
  if (rt.events) {
    const command = shownCommand(c.command, c.env);
    rt.emit({ type: "shell", command, status: r.status, span: node.span, fileName: file, durationMs, stdoutLength: r.stdout.length, stderrLength: r.stderr.length });
  }
  return r;
}

function failed(r: ShellResult, c: Built, node: Node, file: string): never {
  return raise("PW3020", node.span, file, { status: r.status, command: shownCommand(c.command, c.env), stderr: r.stderr.trimEnd() });
}

/** `$(…)` / `($ …)`: stdout without trailing newlines; in a condition, exit status 0. */
export function compileShellExpr(e: ShellExpr, cx: Cx, cond: boolean): (f: Value[]) => Value {
  const build = compileShellList(e.command, cx);
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    const c = buildCommand(build, f);
    const r = runShell(rt, c, e, file);
    if (cond) return r.status === 0;
    if (r.status !== 0) failed(r, c, e, file);
    return r.stdout.replace(/(\r?\n)+$/, "");
  };
}

/** `$ cmd`: stdout goes to the program's output; a non-zero exit raises. */
export function compileShellStmt(s: ShellStmt, cx: Cx): StmtFn {
  const build = compileShellList(s.command, cx);
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    const c = buildCommand(build, f);
    const r = runShell(rt, c, s, file);
    rt.write(r.stdout);
    if (r.status !== 0) failed(r, c, s, file);
    if (r.stderr) rt.log(r.stderr);
    return 0;
  };
}
