// What `patchwork run file.pw [words…]` gives back (language.md §5, decision 0012), on each of
// its paths: in process (no agent), on evaluator threads (a program with workers) and with an
// ACP agent (the scripted test agent as a real process).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

function agentWith(script: object): string {
  const dir = tempFiles({ "script.json": JSON.stringify(script) });
  return `"${process.execPath}" "${testAgent}" "${join(dir, "script.json")}"`;
}

const GREETER = `# Greets someone.
export default trait Greeter: Agent {
    @skill greet
    fun greet(name: string, times: number) {
        print("greeting \${name}")
        return {name: name, times: times}
    }
}
fun text() { return "plain string" }
fun nothing() { print("only output") }
`;
// The same, on evaluator threads (a program that declares a worker runs on threads of its own).
const THREADED = GREETER + "worker unused() { return 1 }\n";

const paths: Array<[string, string, string[]]> = [
  ["in process", GREETER, []],
  ["on evaluator threads", THREADED, []],
];

describe("patchwork run: an entry's return value", () => {
  for (const [label, source, extra] of paths) {
    it(`is printed after its output: JSON for data, a string as is, nothing for null (${label})`, () => {
      const file = join(tempFiles({ "g.pw": source }), "g.pw");
      const data = patchwork(["run", file, "greet", "Ann", "2", ...extra]);
      expect(data.stderr).toBe("");
      expect(data.stdout).toBe('greeting Ann\n{\n  "name": "Ann",\n  "times": 2\n}\n');
      expect(data.status).toBe(0);
      expect(patchwork(["run", file, "text", ...extra]).stdout).toBe("plain string\n");
      expect(patchwork(["run", file, "nothing", ...extra]).stdout).toBe("only output\n");
      // The default entry (the file's one skill) takes the words when the first names no entry.
      expect(patchwork(["run", file, "Bob", "3", ...extra]).stdout).toBe('greeting Bob\n{\n  "name": "Bob",\n  "times": 3\n}\n');
    });

    it(`--json prints one object {value, output} instead (${label})`, () => {
      const file = join(tempFiles({ "g.pw": source }), "g.pw");
      const r = patchwork(["run", file, "greet", "Ann", "2", "--json", ...extra]);
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ value: { name: "Ann", times: 2 }, output: "greeting Ann\n" });
      expect(r.stdout.trim().split("\n")).toHaveLength(1);
      const failed = patchwork(["run", file, "greet", "Ann", "x", "--json", ...extra]);
      expect(failed.status).toBe(1);
      expect(JSON.parse(failed.stdout)).toEqual({ value: null, output: "" });
      expect(failed.stderr).toContain("error[PW3065]: argument 'times' (number): expected number");
    });
  }

  it("the reference's programs whose only result is their return value show it", () => {
    const examples = join(repoRoot, "packages", "parser", "test", "fixtures", "reference", "examples", "examples");
    const multi = patchwork(["run", join(examples, "test-multifile", "main.pw")]);
    expect(multi.stderr).toBe("");
    expect(multi.stdout).toBe("Helper: Hello from main\n");
    // A worker entry returning its session's id (a ULID).
    const session = patchwork(["run", join(examples, "session-demo.pw"), "session_demo"]);
    expect(session.stderr).toBe("");
    expect(session.stdout).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}\n$/);
  });

  it("a program of statements prints no value; its words are its args", () => {
    const file = join(tempFiles({ "s.pw": 'print("args:", len(args), args)\n"not shown"\n' }), "s.pw");
    const r = patchwork(["run", file, "foo", "bar baz"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("args: 2 foo, bar baz\n");
    expect(r.status).toBe(0);
  });

  it("a word that names no entry of a file of declarations: an error listing the entries, before anything runs", () => {
    const dir = tempFiles({ "d.pw": "import ./{lib}\nfun a(x) { return x }\n", "lib.pw": 'print("lib ran")\nexport fun y() { return 1 }\n' });
    const r = patchwork(["run", join(dir, "d.pw"), "zzz"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("entry point 'zzz' not found (the file has no top-level statements or default entry that would take 'zzz' as an argument); its entries: a(x)");
  });

  it("the trace's run-end record carries the entry and its value", () => {
    const dir = tempFiles({ "g.pw": GREETER });
    const r = patchwork(["run", join(dir, "g.pw"), "greet", "Ann", "2", "--trace", join(dir, "t.jsonl")]);
    expect(r.status).toBe(0);
    const end = readFileSync(join(dir, "t.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).at(-1);
    expect(end).toMatchObject({ type: "run-end", ok: true, entry: "greet", value: { name: "Ann", times: 2 } });
  });
});

describe("patchwork run: a think used as a statement shows its answer", () => {
  it("with an agent: on stdout, in program order, and the entry's value after it", () => {
    const agent = agentWith({ prompts: [{ match: "Greet", steps: [{ reply: "Hello, Ada!" }] }, { match: "Count", steps: [{ reply: "3" }] }] });
    const source = 'fun main(name) {\n    think { Greet ${name}. }\n    var n = think { Count. }\n    return "n=" + n\n}\n';
    const file = join(tempFiles({ "m.pw": source }), "m.pw");
    const r = patchwork(["run", file, "main", "Ada", "--agent", agent]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("Hello, Ada!\nn=3\n");
    expect(r.status).toBe(0);
  });

  it("without an agent: the think's value, its prompt", () => {
    const file = join(tempFiles({ "m.pw": "think { Say hi. }\n" }), "m.pw");
    const r = patchwork(["run", file, "--no-agent"]);
    expect(r.stdout).toBe('{"__think_prompt":"Say hi."}\n');
  });
});
