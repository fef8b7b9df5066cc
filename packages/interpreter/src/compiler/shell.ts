/**
 * Shell commands (language.md §6). The AST's words are turned back into one `/bin/sh -c`
 * command string:
 * - literal text (`ShellText.raw`) is passed exactly as written, so globbing, pipes,
 *   redirects, `~`, `$(…)` and sh's own `$VAR` keep working;
 * - every interpolated value becomes exactly one word, single-quoted (`'` written as
 *   `'\''`), or, inside double quotes, with `\ " $ `` escaped; an array that is the whole
 *   bare word becomes one quoted word per element. A value can never be re-split, globbed
 *   or executed;
 * - `$name` where `name` is not a Patchwork variable in scope is handed to sh as written,
 *   so environment variables such as `$HOME` keep working.
 */
import type { Node, ShellCommand, ShellExpr, ShellList, ShellRedirect, ShellStmt, ShellWord } from "@patchwork/parser";
import { raise } from "../errors.js";
import type { ShellResult } from "../ports.js";
import type { Runtime } from "../runtime.js";
import { toText, type Value } from "../values.js";
import { compileExpr } from "./expr.js";
import type { Cx } from "./scope.js";
import type { StmtFn } from "./types.js";

type Build = (f: Value[]) => string;

/** Quotes a string as one literal sh word. */
export function shellQuote(s: string): string {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

/** Escapes a string so it stays literal inside sh double quotes. */
export function shellEscapeDouble(s: string): string {
  return s.replace(/[\\"$`]/g, (c) => "\\" + c);
}

function constant(s: string): Build {
  return () => s;
}

function concat(parts: Build[]): Build {
  if (parts.length === 1) return parts[0]!;
  return (f) => {
    let s = "";
    for (let i = 0; i < parts.length; i++) s += parts[i]!(f);
    return s;
  };
}

function compileWord(w: ShellWord, cx: Cx): Build {
  const whole = w.parts.length === 1;
  return concat(
    w.parts.map((p): Build => {
      if (p.kind === "ShellText") return constant(p.raw);
      const e = p.expr;
      if (e.kind === "Ident" && !cx.scope.lookup(e.name)) return constant(p.raw);
      const v = compileExpr(e, cx);
      if (p.context === "double") return (f) => shellEscapeDouble(toText(v(f)));
      return (f) => {
        const x = v(f);
        if (Array.isArray(x) && (whole || p.spread)) return x.map((el) => shellQuote(toText(el))).join(" ");
        return shellQuote(toText(x));
      };
    }),
  );
}

function compileRedirect(r: ShellRedirect, cx: Cx): Build {
  const fd = r.fd === null ? "" : String(r.fd);
  if (!r.target) return constant(`${fd}${r.op}${r.dupFd ?? ""}`);
  const t = compileWord(r.target, cx);
  if (r.op === "&>") return (f) => `>${t(f)} 2>&1`;
  return (f) => `${fd}${r.op}${t(f)}`;
}

function compileCommand(c: ShellCommand, cx: Cx): Build {
  const parts = [...c.words.map((w) => compileWord(w, cx)), ...c.redirects.map((r) => compileRedirect(r, cx))];
  return (f) => parts.map((p) => p(f)).join(" ");
}

export function compileShellList(list: ShellList, cx: Cx): Build {
  const pipeline = (p: ShellList["first"]): Build => {
    const cmds = p.commands.map((c) => compileCommand(c, cx));
    return (f) => cmds.map((c) => c(f)).join(" | ");
  };
  const parts: Build[] = [pipeline(list.first)];
  for (const r of list.rest) {
    parts.push(constant(r.op === ";" ? "; " : ` ${r.op} `));
    parts.push(pipeline(r.pipeline));
  }
  return concat(parts);
}

export function runShell(rt: Runtime, command: string, node: Node, file: string): ShellResult {
  rt.checkTime(node, file);
  const left = rt.timeLeft();
  const r = rt.host.shell(command, Number.isFinite(left) ? { cwd: rt.cwd, timeoutMs: left } : { cwd: rt.cwd });
  rt.checkTime(node, file); // the command may have used up (or been stopped at) the time limit
  rt.lastStatus = r.status;
  if (rt.events) rt.emit({ type: "shell", command, status: r.status, span: node.span });
  return r;
}

function failed(r: ShellResult, command: string, node: Node, file: string): never {
  return raise("PW3020", node.span, file, { status: r.status, command, stderr: r.stderr.trimEnd() });
}

/** `$(…)` / `($ …)`: stdout without trailing newlines; in a condition, exit status 0. */
export function compileShellExpr(e: ShellExpr, cx: Cx, cond: boolean): (f: Value[]) => Value {
  const build = compileShellList(e.command, cx);
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    const command = build(f);
    const r = runShell(rt, command, e, file);
    if (cond) return r.status === 0;
    if (r.status !== 0) failed(r, command, e, file);
    return r.stdout.replace(/(\r?\n)+$/, "");
  };
}

/** `$ cmd`: stdout goes to the program's output; a non-zero exit raises. */
export function compileShellStmt(s: ShellStmt, cx: Cx): StmtFn {
  const build = compileShellList(s.command, cx);
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  return (f) => {
    const command = build(f);
    const r = runShell(rt, command, s, file);
    rt.write(r.stdout);
    if (r.status !== 0) failed(r, command, s, file);
    if (r.stderr) rt.log(r.stderr);
    return 0;
  };
}
