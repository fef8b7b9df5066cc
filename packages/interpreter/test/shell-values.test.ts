// Issue 9, items 1 and 3: values in shell commands are data (never code, never lost), in
// every quoting context; what cannot be handed to sh is a catchable, positioned error.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSource, tempDir } from "./helpers.js";

describe("the three injections of issue 9", () => {
  it("$(…) inside double quotes: the value is printed, not run", () => {
    const cwd = tempDir();
    const r = runSource(`var a = "x; touch ${cwd}/pwned"\n$ echo "A:$(printf '%s' \${a})"`, { cwd });
    expect(r.error).toBeNull();
    expect(r.output).toBe(`A:x; touch ${cwd}/pwned\n`);
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
  });

  it("backquotes inside double quotes: the value is printed, not run", () => {
    const cwd = tempDir();
    const r = runSource(`var b = "\`touch ${cwd}/pwned2\`"\n$ echo "B:\`echo \${b}\`"`, { cwd });
    expect(r.error).toBeNull();
    expect(r.output).toBe(`B:\`touch ${cwd}/pwned2\`\n`);
    expect(existsSync(join(cwd, "pwned2"))).toBe(false);
  });

  it("double quotes inside $(…) inside double quotes: no stray quotes around the value", () => {
    const cwd = tempDir();
    const r = runSource(`var c = "'; touch ${cwd}/p3; '"\n$ echo "C:$(echo "\${c}")"`, { cwd });
    expect(r.error).toBeNull();
    expect(r.output).toBe(`C:'; touch ${cwd}/p3; '\n`);
    expect(existsSync(join(cwd, "p3"))).toBe(false);
  });

  it("a value in a bare $(…) is not dropped", () => {
    const r = runSource(`var a = "v a l"\n$ printf '[%s]' $(printf '%s' \${a}) "$(printf '%s' $a)"; echo`);
    expect(r.output).toBe("[v][a][l][v a l]\n"); // the outer $(…) is unquoted: sh splits its output
  });
});

describe("quoting contexts", () => {
  it("single quotes are literal, as in sh: ${x} inside them is not interpolated", () => {
    const r = runSource(`var x = "value"\n$ printf '%s\\n' '\${x} $x'`);
    expect(r.output).toBe("${x} $x\n");
  });

  it("$((…)) takes integers; anything else is a positioned, catchable error", () => {
    const r = runSource(
      'var n = 41\nvar s = "2"\n$ echo $(( ${n} + $s ))\ntry {\n  var bad = "1 + x[$(touch pwned)]"\n  $ echo $(( ${bad} ))\n} catch e { print(e.line, e.column, e.message) }',
    );
    expect(r.error).toBeNull();
    expect(r.output).toMatch(/^43\n6 14 cannot pass this value to a command: \$\{bad\} stands in \$\(\(…\)\), so it must be an integer/);
    expect(existsSync(join(r.cwd, "pwned"))).toBe(false);
  });

  it("an empty string stays one (empty) word; an empty array alone gives no word", () => {
    const r = runSource("var e = \"\"\nvar none = []\n$ printf '[%s]' ${e} \"${e}\" ${none} x; echo");
    expect(r.output).toBe("[][][x]\n");
  });

  it("arrays: words bare and spread, joined with spaces inside double quotes or within a word", () => {
    const r = runSource(`var a = ["x y", "*"]\n$ printf '<%s>' \${a} $@{a} "\${a}" pre\${a} pre$@{a}post; echo`);
    expect(r.output).toBe("<x y><*><x y><*><x y *><prex y *><prex y><*post>\n");
  });

  it("a redirect target is one file name, even with spaces", () => {
    const r = runSource('var f = "out file.txt"\n$ echo hi > ${f}\nprint(read(f))');
    expect(r.output).toBe("hi\n\n");
  });

  it("an interpolation inside nested backquotes is refused at parse time (PW2020)", () => {
    const r = runSource("var x = 1\n$ echo `echo \\`echo ${x}\\``");
    expect(r.error).toMatch(/^PW2020 at 2:21: .*write \$\(…\)/);
  });

  it("the error message shows the command with its values, not the references", () => {
    const r = runSource(`var f = "no such file"\n$ cat \${f} "in $f"`);
    expect(r.error).toMatch(/^PW3020 at 2:1: command failed with exit status 1: cat 'no such file' "in no such file"/);
  });
});

describe("NUL bytes (issue 9, item 3)", () => {
  it("command output keeps them; passing one to a command is a catchable error at the interpolation", () => {
    const r = runSource(
      ['var x = $(printf "a\\0b")', "print(x.length)", "try {", "  $ echo ${x}", '} catch e { print("caught:", e.line, e.column, e.message) }', 'print("after")'].join("\n"),
    );
    expect(r.error).toBeNull();
    expect(r.output).toBe("3\ncaught: 4 10 cannot pass this value to a command: ${x} contains a NUL byte, which no command argument can hold (remove it first, e.g. with replace())\nafter\n");
  });

  it("uncaught, it is a positioned error, not an internal one", () => {
    const r = runSource('var x = $(printf "a\\0b")\n$ echo "[$x]"');
    expect(r.error).toMatch(/^PW3025 at 2:10: /);
  });
});
