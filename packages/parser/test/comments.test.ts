// `#` and `//` comments (language.md §2): both end at the end of the line in code, are one
// token type for every tool, and are plain text inside strings, prompts and shell words.
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";
import { tokenize } from "../src/lexer/lexer.js";
import { Comment } from "../src/lexer/tokens.js";
import { first, parseOk, strip } from "./helpers.js";

describe("comments", () => {
  it("`//` and `#` are the same token type, in the comments group the parser never sees", () => {
    const { tokens, errors, comments } = tokenize("var a = 1 // one\nvar b = 2 # two\n");
    expect(errors).toEqual([]);
    expect(tokens.some((t) => t.tokenType === Comment)).toBe(false);
    expect(comments.map((t) => t.image)).toEqual(["// one", "# two"]);
    expect(Comment.GROUP).toBe("comments");
  });

  it("a `//` comment gives the same AST as a `#` comment, wherever code allows one", () => {
    const sources = [
      "var x = 1 %c note\nprint(x)",
      "%c leading\nvar x = [\n  1, %c first\n  2,\n]\n",
      "if x { %c then\n  print(1)\n} %c before else\nelse {\n  print(2)\n}\n",
      "f(a, %c arg\n  b)\n",
      "var o = {\n  a: 1, %c key\n  b: 2\n}\n",
    ];
    for (const s of sources) {
      const hash = parseOk(s.replaceAll("%c", "#"));
      const slashes = parseOk(s.replaceAll("%c", "//"));
      expect(strip(slashes), s).toEqual(strip(hash));
    }
  });

  it("`/` alone is still division; `//` ends the line's code", () => {
    expect(first("a / b")).toMatchObject({ kind: "ExprStmt", expr: { kind: "Binary", op: "/" } });
    expect(first("a // b")).toMatchObject({ kind: "ExprStmt", expr: { kind: "Ident", name: "a" } });
  });

  it("is text inside strings, prompt text and shell words", () => {
    const s = first('var u = "http://x # y"') as { init: { parts: { value: string }[] } };
    expect(s.init.parts[0]!.value).toBe("http://x # y");
    const t = first("think {\n  see http://example.com // not a comment\n}") as { expr: { prompt: { value: string }[] } };
    expect(t.expr.prompt.map((p) => p.value).join("")).toContain("http://example.com // not a comment");
    const sh = first("$ curl http://x // y") as { command: unknown };
    expect(JSON.stringify(sh.command)).toContain("http://x");
    expect(JSON.stringify(sh.command)).toContain("//");
    const cap = first("var p = $(curl http://x)") as { init: unknown };
    expect(JSON.stringify(cap.init)).toContain("http://x");
  });

  it("a `//` comment before `else` keeps the `if` together", () => {
    const { diagnostics } = parse("if a {\n  b()\n}\n// why\nelse {\n  c()\n}\n");
    expect(diagnostics).toEqual([]);
  });
});
