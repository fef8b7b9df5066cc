// Values too large for a command's environment (issue 34: a value over 128 KiB never reached a
// command: `spawn E2BIG`, echoing the whole value). Past 64 KiB of values, or a command text past
// 64 KiB (an array of 20,000 elements spread), the command runs from a private temporary file of
// single-quoted assignments (shell-values.ts): the values arrive byte-identical, are never run,
// the file is gone afterwards, and a failing command's message shows at most 200 characters of a value.
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_VALUES_MAX, shellValues } from "../src/index.js";
import { runSource, tempDir } from "./helpers.js";

const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith("pw-values-"));

describe("values too large for the environment reach the command", () => {
  it("a 3 MB value with hostile characters: byte-identical through printf and $(…), never run, no file left", () => {
    const dir = tempDir();
    const mark = join(dir, "pwned");
    const before = leftovers().length;
    const source = [
      `var big = "ab'c\\"d".repeat(500000) + "$'$'(touch ${mark})\`touch ${mark}\`"`,
      `var n = $(printf %s "$big" | wc -c)`,
      `var back = $(printf %s \${big})`,
      `print(n, back == big, back.length)`,
    ].join("\n");
    const r = runSource(source, { cwd: dir });
    expect(r.error).toBeNull();
    const length = 6 * 500000 + `$(touch ${mark})\`touch ${mark}\``.length;
    expect(r.output).toBe(`${length} true ${length}\n`);
    expect(existsSync(mark)).toBe(false);
    expect(leftovers().length).toBe(before);
  });

  it("20,000 elements spread into one command (its text past 64 KiB) arrive one word each", () => {
    const r = runSource(`var xs = []\nfor var i in 1...20000 { xs.push("it'em \${i}") }\nvar n = $(printf '%s\\n' $@{xs} | wc -l)\nvar last = $(printf '%s\\n' $@{xs} | tail -n 1)\nprint(n, last)`);
    expect(r.error).toBeNull();
    expect(r.output).toBe("20000 it'em 20000\n");
  });

  it("a failing command with a 1 MB value: its message shows 200 characters and the length", () => {
    const r = runSource(`var big = "z".repeat(1000000)\n$ printf %s \${big} > /dev/null; exit 3`);
    expect(r.error).toMatch(/^PW3020 at 2:1: command failed with exit status 3: printf %s 'z{200}'…\(1000000 characters\) >\/dev\/null; exit 3$/);
  });

  it("small values stay in the environment (no file)", () => {
    const v = shellValues('printf %s "${PW_1}"', { PW_1: "x".repeat(ENV_VALUES_MAX - 100) });
    expect(v.command).toBe('printf %s "${PW_1}"');
    const big = shellValues('printf %s "${PW_1}"', { PW_1: "x".repeat(ENV_VALUES_MAX) });
    expect(big.command).toBe('. "$PW_VALUES"');
    expect(Object.keys(big.env)).toEqual(["PW_VALUES"]);
    big.cleanup();
    expect(existsSync(big.env.PW_VALUES!)).toBe(false);
  });
});
