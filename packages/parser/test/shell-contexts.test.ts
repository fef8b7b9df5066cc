// The sh quoting context of each interpolation (docs/security.md): the parser follows
// "…", $(…), $((…)) and backquotes at any depth, so the interpreter can splice a reference
// quoted for the place where the value lands.
import { describe, expect, it } from "vitest";
import { parse, type ShellList, type ShellWord } from "../src/index.js";
import { codes, parseOk } from "./helpers.js";

function command(source: string): ShellList {
  const s = parseOk(source).body[0]!;
  if (s.kind === "ShellStmt") return s.command;
  if (s.kind === "VarDecl" && s.init?.kind === "Shell") return s.init.command;
  throw new Error(`no shell command in ${s.kind}`);
}

/** Words with interpolations shown as «raw:context[:alone]». */
function render(list: ShellList): string {
  const word = (w: ShellWord) =>
    w.parts.map((p) => (p.kind === "ShellText" ? p.raw : `«${p.raw}:${p.context}${p.alone ? ":alone" : ""}»`)).join("");
  return list.first.commands.map((c) => c.words.map(word).join(" ")).join(" | ");
}

describe("quoting contexts of interpolations", () => {
  const table: [string, string][] = [
    ["$ echo ${a} x${a}", "echo «${a}:bare:alone» x«${a}:bare»"],
    ['$ echo "A:$(printf %s ${a})"', 'echo "A:$(printf %s «${a}:bare:alone»)"'],
    ['$ echo "B:`echo ${b}`"', 'echo "B:`echo «${b}:bare:alone»`"'],
    ['$ echo "C:$(echo "${c}")"', 'echo "C:$(echo "«${c}:double»")"'],
    ['$ echo $(echo "$(echo $x "${y}")")', 'echo $(echo "$(echo «$x:bare:alone» "«${y}:double»")")'],
    ["$ echo `echo \"a ${x}\" '${y}'`", "echo `echo \"a «${x}:double»\" '${y}'`"],
    ['$ echo "`echo \\"${x}\\" ${y}`"', 'echo "`echo \\"«${x}:double»\\" «${y}:bare:alone»`"'],
    ['$ echo $(( ${n} + (2 * $m) )) "$((1+${k}))"', 'echo $(( «${n}:arith» + (2 * «$m:arith») )) "$((1+«${k}:arith»))"'],
    ["$ echo '${x}' \"'${y}'\"", "echo '${x}' \"'«${y}:double»'\""],
    ["var v = $(echo (a ${b}) && c)", "echo (a «${b}:bare:alone»)"],
    ["$ echo ${HOME:-x} \"${p##*/}\" ${#y}", 'echo ${HOME:-x} "${p##*/}" ${#y}'],
  ];
  it.each(table)("%s", (source, expected) => {
    expect(render(command(source))).toBe(expected);
  });

  it("a multi-line $(…) inside a shell line is one command", () => {
    expect(render(command("$ echo $(echo a\n  b ${x})"))).toBe("echo $(echo a\n  b «${x}:bare:alone»)");
  });
});

describe("what the parser refuses", () => {
  it("an interpolation inside nested (escaped) backquotes: PW2020, write $(…)", () => {
    const { diagnostics } = parse("$ echo `echo \\`echo ${x}\\``");
    expect(codes(diagnostics)).toEqual(["PW2020@1:21"]);
    expect(diagnostics[0]!.message).toMatch(/nested backquotes: write \$\(…\)/);
  });

  it("nested backquotes without interpolation are sh's business", () => {
    expect(codes(parse("$ echo `echo \\`date\\``").diagnostics)).toEqual([]);
  });

  it("heredocs and here-strings: one clear error", () => {
    for (const source of ["$ cat <<EOF", '$ cat <<< "${x}"', "var y = $(cat << EOF\na\nEOF\n)"]) {
      const { diagnostics } = parse(source);
      expect(codes(diagnostics), source).toHaveLength(1);
      expect(diagnostics[0]!.message).toMatch(/heredocs and here-strings \(<<, <<<\) are not supported/);
    }
  });

  it("a double quote left open inside backquotes: PW1006 at the backquote that ends them", () => {
    const { diagnostics } = parse('$ echo `echo "a` b');
    expect(codes(diagnostics)).toEqual(["PW1006@1:16"]);
  });
});
