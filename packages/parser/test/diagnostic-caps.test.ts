// Diagnostics stay readable and cheap however bad the input (issue 34: 1,500 unterminated `${`
// on one line printed 6.7 MB, 8,000 printed 192 MB in 80 s): each excerpt is a window of the line
// around the column, and each file shows at most 50 diagnostics, then "… and K more".
import { describe, expect, it } from "vitest";
import { DIAGNOSTICS_SHOWN_PER_FILE, EXCERPT_MAX, formatDiagnostic, formatDiagnostics, parse, SourceFile } from "../src/index.js";

const render = (src: string) => formatDiagnostics(parse(src, { fileName: "u.pw" }).diagnostics, new SourceFile(src, "u.pw"), () => "").join("\n");

describe("diagnostic excerpts and counts are bounded", () => {
  for (const [name, line] of [
    ["8,000 unterminated `${` in a string", 'var s = "' + "${".repeat(8000)],
    ["8,000 unterminated `$(` on a shell line", "$ echo " + "$(".repeat(8000)],
  ] as const) {
    it(`${name}: 50 diagnostics of one window each, then how many more`, () => {
      const text = render(line + "\n");
      expect(text.length).toBeLessThan(20_000);
      const lines = text.split("\n");
      expect(lines.filter((l) => /^u\.pw:1:\d+: error\[PW/.test(l))).toHaveLength(DIAGNOSTICS_SHOWN_PER_FILE);
      expect(lines.at(-1)).toMatch(/^u\.pw: … and \d+ more \(\d+ diagnostics in all; the first 50 are shown\)$/);
      for (const l of lines.filter((x) => x.startsWith("1 | "))) expect(l.length).toBeLessThanOrEqual(4 + EXCERPT_MAX + 2);
    });
  }

  it("the caret stays under the column in a window of a long line", () => {
    const src = `var a = 1 + ${"1 + ".repeat(100)}@ + 2\n`;
    const d = parse(src, { fileName: "u.pw" }).diagnostics[0]!;
    const [, excerpt, caret] = formatDiagnostic(d, new SourceFile(src, "u.pw")).split("\n");
    const at = caret!.indexOf("^");
    expect(excerpt!.startsWith("1 | …")).toBe(true);
    expect(excerpt![at]).toBe("@");
  });

  it("a short line is shown whole, as before", () => {
    const src = "var x = = 1\n";
    const d = parse(src, { fileName: "u.pw" }).diagnostics[0]!;
    expect(formatDiagnostic(d, new SourceFile(src, "u.pw")).split("\n").slice(1)).toEqual(["1 | var x = = 1", "  |         ^"]);
  });
});
