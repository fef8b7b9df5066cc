import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, tempFiles } from "./helpers.js";

describe("usage errors exit 2", () => {
  it("no command", () => {
    const r = patchwork([]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/say which command to run/);
  });

  it("unknown command", () => {
    const r = patchwork(["frobnicate"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Unknown argument: frobnicate|Unknown command/i);
  });

  it("unknown option", () => {
    const r = patchwork(["run", "examples/hello.pw", "--bogus"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bogus/);
  });

  it("missing file", () => {
    for (const cmd of ["run", "parse", "check"]) {
      const r = patchwork([cmd, "no/such/file.pw"]);
      expect(r.status, cmd).toBe(2);
      expect(r.stderr).toContain("no/such/file.pw: no such file");
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it("--agent with --no-agent", () => {
    const r = patchwork(["run", "examples/hello.pw", "--agent", "x", "--no-agent"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("exclude each other");
  });

  it("help exits 0 and lists the commands", () => {
    const r = patchwork(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/run <file>/);
    expect(r.stdout).toMatch(/parse <file>/);
    expect(r.stdout).toMatch(/check <files\.\.>/);
  });
});

describe("patchwork parse", () => {
  it("prints the AST as JSON with spans", () => {
    const dir = tempFiles({ "a.pw": 'var x = 1\nprint("x is ${x}")\n' });
    const r = patchwork(["parse", join(dir, "a.pw")]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const ast = JSON.parse(r.stdout);
    expect(ast.kind).toBe("Program");
    expect(ast.body[0].kind).toBe("VarDecl");
    expect(ast.body[0].span.start).toEqual({ offset: 0, line: 1, column: 1 });
    expect(ast.body[1].span.start.line).toBe(2);
  });

  it("parses Threadbare JSON into the same AST", () => {
    const r = patchwork(["parse", "examples/categorize.json"]);
    expect(r.status).toBe(0);
    const ast = JSON.parse(r.stdout);
    const think = ast.body[0].expr;
    expect(think.kind).toBe("Think");
    expect(think.children).toHaveLength(3);
  });

  it("reports errors as FILE:LINE:COL: error[CODE] with the line and a caret, exit 1", () => {
    const dir = tempFiles({ "bad.pw": "var x = 1\nvar y = 'single'\n" });
    const file = join(dir, "bad.pw");
    const r = patchwork(["parse", file]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2:9: error\\[PW\\d{4}\\]: `));
    expect(lines[1]).toBe("2 | var y = 'single'");
    expect(lines[2]).toMatch(/^ {2}\| {9}\^+$/);
  });

  it("reports a bad Threadbare shape with its JSON path", () => {
    const dir = tempFiles({ "bad.json": '{"Block": {"children": [{"Print": {"message": 1}}]}}' });
    const r = patchwork(["parse", join(dir, "bad.json")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error\[PW2\d{3}\]/);
    expect(r.stderr).toMatch(/children\[0\]/);
  });
});

describe("patchwork check", () => {
  it("checks several files, exit 1 if any has errors, nothing on stdout", () => {
    const dir = tempFiles({ "ok.pw": "print(1)\n", "bad.pw": "print(\n" });
    const ok = patchwork(["check", join(dir, "ok.pw")]);
    expect(ok.status).toBe(0);
    expect(ok.stdout + ok.stderr).toBe("");
    const both = patchwork(["check", join(dir, "ok.pw"), join(dir, "bad.pw")]);
    expect(both.status).toBe(1);
    expect(both.stdout).toBe("");
    expect(both.stderr).toContain("bad.pw:");
    expect(both.stderr).not.toContain("ok.pw:");
  });

  it("accepts every example", () => {
    const r = patchwork([
      "check",
      "examples/hello.pw",
      "examples/categorize.pw",
      "examples/categorize.json",
      "examples/nested.json",
      "examples/shell.pw",
      "examples/typed-think.pw",
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});

describe("patchwork check: static checks", () => {
  it("reports undefined names and arity with codes and positions, exit 1", () => {
    const dir = tempFiles({ "c.pw": "fun f(a) { return a }\nprint(f(1, 2), nope)\n" });
    const r = patchwork(["check", join(dir, "c.pw")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("c.pw:2:7: error[PW5002]: f takes at most 1 argument(s), got 2");
    expect(r.stderr).toContain("c.pw:2:16: error[PW5001]: undefined variable 'nope'");
  });
});

describe("patchwork fmt", () => {
  it("rewrites files, --check lists what would change (exit 1), stdin to stdout", () => {
    const dir = tempFiles({ "a.pw": "var x=1+2\nprint( x )\n", "b.pw": "print(1)\n", "bad.pw": "print(\n" });
    const check = patchwork(["fmt", "--check", join(dir, "a.pw"), join(dir, "b.pw")]);
    expect(check.status).toBe(1);
    expect(check.stdout).toBe(`${join(dir, "a.pw")}\n`);
    expect(readFileSync(join(dir, "a.pw"), "utf8")).toBe("var x=1+2\nprint( x )\n");
    const write = patchwork(["fmt", join(dir, "a.pw")]);
    expect(write.status).toBe(0);
    expect(readFileSync(join(dir, "a.pw"), "utf8")).toBe("var x = 1 + 2\nprint(x)\n");
    expect(patchwork(["fmt", "--check", join(dir, "a.pw")]).status).toBe(0);
    const bad = patchwork(["fmt", join(dir, "bad.pw")]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/bad\.pw:1:7: error\[PW2/); // at the end of the line that lacks the ')', not after the file
    expect(readFileSync(join(dir, "bad.pw"), "utf8")).toBe("print(\n");
    const stdin = patchwork(["fmt"], { input: "if x==1 {print(x)\n}\n" });
    expect(stdin.stdout).toBe("if x == 1 {\n    print(x)\n}\n");
    // A short body written on one line stays there (as the manual writes `if n < 2 { return n }`).
    const short = patchwork(["fmt"], { input: "if x==1 {print(x)}\nfor k in [1] {if k {print(k)}}\n" });
    expect(short.stdout).toBe("if x == 1 { print(x) }\nfor k in [1] {\n    if k { print(k) }\n}\n");
  });

  it("every example is formatted (CI runs fmt --check examples/)", () => {
    const r = patchwork(["fmt", "--check", "examples/"]);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
