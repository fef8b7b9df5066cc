// Shell commands: the three forms, words, quoting, interpolation, operators and redirects.
import { describe, expect, it } from "vitest";
import type { ShellList, ShellWord } from "../src/index.js";
import { parseOk, strip } from "./helpers.js";

function shellStmt(source: string): ShellList {
  const s = parseOk(source).body[0]!;
  if (s.kind !== "ShellStmt") throw new Error(`not a shell statement: ${s.kind}`);
  return s.command;
}

/** A compact rendering: words as their parts, interpolations as «name:context». */
function render(list: ShellList): string {
  const word = (w: ShellWord) =>
    w.parts.map((p) => (p.kind === "ShellText" ? p.raw : `«${p.raw}:${p.context}${p.spread ? ":spread" : ""}»`)).join("");
  const pipeline = (p: ShellList["first"]) =>
    p.commands
      .map((c) =>
        [
          ...c.words.map(word),
          ...c.redirects.map((r) => `[${r.fd ?? ""}${r.op}${r.target ? word(r.target) : r.dupFd}]`),
        ].join(" "),
      )
      .join(" | ");
  return [pipeline(list.first), ...list.rest.map((r) => `${r.op} ${pipeline(r.pipeline)}`)].join(" ");
}

describe("shell words and operators", () => {
  const table: [string, string][] = [
    ["$ ls -la", "ls -la"],
    ["$ echo $name", "echo «$name:bare»"],
    ["$ echo ${a.b}x", "echo «${a.b}:bare»x"],
    ["$ rm $@{files}", "rm «$@{files}:bare:spread»"],
    ['$ echo "hello $who, ${n + 1} times"', 'echo "hello «$who:double», «${n + 1}:double» times"'],
    ["$ echo 'no $interp here'", "echo 'no $interp here'"],
    ["$ echo $(date +%s) `whoami` $1 $$ $?", "echo $(date +%s) `whoami` $1 $$ $?"],
    ["$ echo a\\ b \\$x", "echo a\\ b \\$x"],
    ["$ echo {a,b} ~/x *.txt", "echo {a,b} ~/x *.txt"],
    ["$ a | b | c", "a | b | c"],
    ["$ a && b || c; d", "a && b || c ; d"],
    ["$ cmd > out.txt", "cmd [>out.txt]"],
    ["$ cmd >> log 2> err < in", "cmd [>>log] [2>err] [<in]"],
    ["$ cmd 2>&1 | tee x", "cmd [2>&1] | tee x"],
    ["$ cmd &> all >&2", "cmd [&>all] [>&2]"],
    ["$ cmd >$out", "cmd [>«$out:bare»]"],
    ["$ a2>x", "a2 [>x]"],
    ["$ find . -exec rm {} \\;", "find . -exec rm {} \\;"],
    ["$   spaced    words  ", "spaced words"],
    ["$ echo #not-a-comment", "echo #not-a-comment"],
    ['$ echo ${HOME:-/tmp} ${#list} "${x##*/}" ${HOME}', 'echo ${HOME:-/tmp} ${#list} "${x##*/}" «${HOME}:bare»'],
  ];
  it.each(table)("%s", (source, expected) => {
    expect(render(shellStmt(source))).toBe(expected);
  });

  it("ShellText keeps exact raw text including quotes", () => {
    const list = shellStmt(`$ grep -e "a b" 'c d'"e"`);
    expect(strip(list.first.commands[0]!.words[2]!)).toEqual({ kind: "ShellWord", parts: [{ kind: "ShellText", raw: '"a b"' }] });
    expect(strip(list.first.commands[0]!.words[3]!)).toEqual({ kind: "ShellWord", parts: [{ kind: "ShellText", raw: `'c d'"e"` }] });
  });
});

describe("shell forms", () => {
  it("a shell statement runs to the end of the line", () => {
    const body = parseOk("$ echo a; echo b\nprint(1)").body;
    expect(body.map((s) => s.kind)).toEqual(["ShellStmt", "ExprStmt"]);
  });
  it("a standalone } closes the block around a shell line", () => {
    expect(parseOk("if x { $ ls -l }\nprint(1)").body.map((s) => s.kind)).toEqual(["If", "ExprStmt"]);
    expect(render(shellStmt("$ { echo a; echo b; }"))).toBe("{ echo a ; echo b ; }");
  });
  it("$(cmd) and ($ cmd) are expressions", () => {
    const body = parseOk("var a = $(git log | head -n 1)\nvar b = ($ echo hi)\nif ($ test -f x) { }").body;
    expect(strip(body)).toMatchObject([
      { init: { kind: "Shell", form: "capture" } },
      { init: { kind: "Shell", form: "paren" } },
      { kind: "If", test: { kind: "Shell", form: "paren" } },
    ]);
  });
  it("a capture may contain parentheses and span lines", () => {
    const s = parseOk("var a = $(echo (x) &&\n  echo y)").body[0]!;
    expect(s).toMatchObject({ init: { kind: "Shell", command: { rest: [{ op: "&&" }] } } });
  });
  it("shell status", () => {
    expect(strip(parseOk("print($?)").body[0])).toMatchObject({ expr: { args: [{ kind: "ShellStatus" }] } });
  });
  it("redirect fields", () => {
    const c = shellStmt("$ cmd 2>&1 >> f").first.commands[0]!;
    expect(strip(c.redirects)).toEqual([
      { kind: "ShellRedirect", op: ">&", fd: 2, target: null, dupFd: 1 },
      { kind: "ShellRedirect", op: ">>", fd: null, target: { kind: "ShellWord", parts: [{ kind: "ShellText", raw: "f" }] }, dupFd: null },
    ]);
  });
});
