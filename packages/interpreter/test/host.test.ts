// Host-facing behaviour: ask-user input, warnings, shell word building, output ordering.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeHost, ScriptedAgent } from "../src/index.js";
import { runSource, tempDir } from "./helpers.js";

describe("ask with askUser", () => {
  it("reads the answer from host.readLine instead of the agent", () => {
    const cwd = tempDir();
    const asked: string[] = [];
    let out = "";
    const host = createNodeHost({
      cwd,
      stdout: (t) => (out += t),
      readLine: (p) => {
        asked.push(p);
        return "Ada";
      },
    });
    const agent = new ScriptedAgent([[{ reply: "from agent" }]]);
    const r = runSource('var name = ask { Your name? }\nvar t = think { hi }\nprint(name, t)', { cwd, host, agent, askUser: true });
    expect(r.error).toBeNull();
    expect(out).toBe("Ada from agent\n");
    expect(asked).toEqual(["Your name?"]);
    expect(agent.prompts).toEqual(["hi"]);
  });
});

describe("conditions", () => {
  it("`if a = b` compares (with the parser's warning passed through)", () => {
    const r = runSource('var x = 1\nif x = 1 { print("eq") }\nprint(x)');
    expect(r.output).toBe("eq\n1\n");
    expect(r.diagnostics.map((d) => d.severity)).toEqual(["warning"]);
  });
});

describe("shell words", () => {
  it("spreads arrays into one word per element and keeps text around a value in one word", () => {
    const r = runSource('var a = ["x y", "z"]\nvar t = "1 2"\n$ printf "<%s>" $@{a} pre$t "in $t"\n$ echo');
    expect(r.output).toBe("<x y><z><pre1 2><in 1 2>\n");
  });

  it("passes unbound $NAME to sh (environment variables)", () => {
    const r = runSource("$ X=inner; echo $X ${X}");
    expect(r.output).toBe("inner inner\n");
  });

  it("never executes a value: command substitution and quotes stay literal", () => {
    const cwd = tempDir();
    const r = runSource(
      ['var v = "$(touch pwned)`touch pwned2`\'; touch pwned3; echo \'"', "$ echo $v", '$ echo "$v"', "var r = $(echo $v)", "print(r == v)", 'print(exists("pwned"), exists("pwned2"), exists("pwned3"))'].join("\n"),
      { cwd },
    );
    expect(r.error).toBeNull();
    const v = "$(touch pwned)`touch pwned2`'; touch pwned3; echo '";
    expect(r.output).toBe(`${v}\n${v}\ntrue\nfalse false false\n`);
  });
});

describe("injection", () => {
  it('a value like `"; rm -rf x; echo "` is one literal argument', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, "x"));
    const r = runSource('var v = "\\"; rm -rf x; echo \\""\n$ echo $v\n$ echo "$v"\nprint(exists("x"))', { cwd });
    expect(r.error).toBeNull();
    expect(r.output).toBe('"; rm -rf x; echo "\n"; rm -rf x; echo "\ntrue\n');
    expect(existsSync(join(cwd, "x"))).toBe(true);
  });
});

describe("output", () => {
  it("keeps print, shell, child output and a statement think's answer in program order", () => {
    const agent = new ScriptedAgent([[{ do: 0 }, { reply: "r" }]]);
    const r = runSource('print("1")\n$ echo 2\nthink {\n  do { print("3") }\n}\n$ echo 4', { agent });
    expect(r.output).toBe("1\n2\n3\nr\n4\n");
  });
});
