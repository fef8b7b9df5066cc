// The public API: run(), Interpreter, entry points, Threadbare, events, the Node host.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "@patchwork/parser";
import { describe, expect, it } from "vitest";
import {
  createNodeHost,
  fromJson,
  Interpreter,
  RuntimeError,
  ScriptedAgent,
  shellEscapeDouble,
  shellQuote,
  stringifyJson,
  toJson,
  toText,
  writeFileAtomic,
} from "../src/index.js";
import { runSource, tempDir } from "./helpers.js";

describe("run()", () => {
  it("returns value, output and diagnostics", () => {
    const r = runSource('print("hi")\nvar o = {a: [1, 2]}\no');
    expect(r.ok).toBe(true);
    expect(r.output).toBe("hi\n");
    expect(r.value).toEqual({ a: [1, 2] });
    expect(r.diagnostics).toEqual([]);
  });

  it("reports parse errors without running", () => {
    const r = runSource("print('single')\n");
    expect(r.ok).toBe(false);
    expect(r.output).toBe("");
    expect(r.diagnostics[0]!.code).toMatch(/^PW[12]/);
  });

  it("reports runtime errors with code, span and file name", () => {
    const r = runSource("print(1)\nprint(nope)", { fileName: "prog.pw" });
    expect(r.output).toBe("1\n");
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect([d.code, d.severity, d.fileName, d.span.start.line, d.span.start.column]).toEqual(["PW3002", "error", "prog.pw", 2, 7]);
  });

  it("runs an entry point chosen by option (after top-level statements)", () => {
    const src = 'print("top")\nfun other() { print("other"); return 5 }';
    expect(runSource(src, { entry: "other" }).output).toBe("top\nother\n");
    expect(runSource(src, { entry: "other" }).value).toBe(5);
    expect(runSource(src, { entry: "nope" }).error).toMatch(/^PW3051 /);
  });

  it("main's return value is the program's value", () => {
    expect(runSource("fun main() { return [1] }").value).toEqual([1]);
  });

  it("loads Threadbare JSON programs", () => {
    const json = JSON.stringify({
      Block: {
        children: [
          { Print: { message: "First" } },
          { Think: { think: { prompt: "Pick. do(0) or do(1).", children: [{ Print: { message: "zero" } }, { Print: { message: "one" } }] } } },
          { Print: { message: "Last" } },
        ],
      },
    });
    const agent = new ScriptedAgent([[{ do: 1 }, { reply: "picked one" }]]);
    const r = runSource(json, { fileName: "prog.json", agent });
    expect(r.error).toBeNull();
    expect(r.output).toBe("First\none\nLast\n");
    expect(agent.prompts).toEqual(["Pick. do(0) or do(1)."]);
    expect(agent.thinks[0]!.doResults).toEqual([{ ok: true, text: "one\n" }]);
  });

  it("emits the event stream", () => {
    const agent = new ScriptedAgent([[{ do: 0 }, { reply: "r" }]]);
    const r = runSource('print("p")\nlog("l")\n$ true\nfor i in 1...2 { }\nthink {\n  do { print("c") }\n}', { agent });
    // (loop items after the first are told by time: compiler/loop-progress.ts)
    const types = r.events.map((e) => e.type).filter((t, i, all) => t !== "loop-item" || all[i - 1] !== "loop-item");
    expect(types).toEqual(["print", "log", "shell", "loop-start", "loop-item", "loop-end", "think-start", "do-start", "print", "do-end", "think-end"]);
    expect(r.stderr).toBe("l\n");
  });
});

describe("Interpreter", () => {
  it("runs a parsed program and throws RuntimeError for user errors", () => {
    const out: string[] = [];
    const cwd = tempDir();
    const interp = new Interpreter({ cwd, host: createNodeHost({ cwd, stdout: (t) => out.push(t) }) });
    const { program } = parse("print(1 + 1)\n40 + 2", { fileName: "a.pw" });
    expect(interp.run(program, { fileName: "a.pw" })).toBe(42);
    expect(out.join("")).toBe("2\n");
    const bad = parse("1 - null", { fileName: "b.pw" }).program;
    expect(() => interp.run(bad, { fileName: "b.pw" })).toThrow(RuntimeError);
  });
});

describe("values", () => {
  it("convert to text and JSON in insertion order", () => {
    const v = fromJson({ b: 1, a: [true, null, 0.5] });
    expect(toText(v)).toBe('{"b":1,"a":[true,null,0.5]}');
    expect(toJson(v)).toEqual({ b: 1, a: [true, null, 0.5] });
    expect(stringifyJson(new Map([["2", 1], ["1", 2]]), null)).toBe('{"2":1,"1":2}');
    expect(toText([1, [2, "x"]])).toBe("1, 2, x");
  });
});

describe("shell quoting", () => {
  it("quotes one literal word", () => {
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellEscapeDouble('a"$b`\\')).toBe('a\\"\\$b\\`\\\\');
  });
});

describe("the Node host", () => {
  it("writes atomically, leaving no temporary files", () => {
    const dir = tempDir();
    const p = join(dir, "f.txt");
    writeFileAtomic(p, "one");
    writeFileAtomic(p, "two");
    expect(readFileSync(p, "utf8")).toBe("two");
    expect(readdirSync(dir)).toEqual(["f.txt"]);
    expect(() => writeFileAtomic(join(dir, "no/such/dir.txt"), "x")).toThrow();
    expect(readdirSync(dir)).toEqual(["f.txt"]);
  });

  it("runs /bin/sh in its cwd and reports the status", () => {
    const dir = tempDir();
    const host = createNodeHost({ cwd: dir });
    const r = host.shell("pwd; echo err >&2; exit 3", { cwd: dir });
    expect(r.status).toBe(3);
    expect(r.stdout.trim().endsWith(dir.split("/").pop()!)).toBe(true);
    expect(r.stderr).toBe("err\n");
  });

  it("resolves relative paths against the program's cwd", () => {
    const dir = tempDir();
    const r = runSource('write("sub.txt", "x")\nprint(exists("sub.txt"), read("sub.txt"))', { cwd: dir });
    expect(r.output).toBe("true x\n");
    expect(existsSync(join(dir, "sub.txt"))).toBe(true);
  });
});
