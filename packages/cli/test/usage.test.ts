// Usage errors in the user's words, the help texts, and --cwd checked before anything runs
// (issue 23: what a newcomer trips on). Real `patchwork` processes.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closest, usageMessage } from "../src/usage-words.js";
import { patchwork, tempFiles } from "./helpers.js";

function usage(args: string[], cwd?: string): string {
  const r = patchwork(args, cwd ? { cwd } : {});
  expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).not.toMatch(/\n\s+at /);
  // The help of the command typed, when it is one (issue 35); else the top level's.
  const command = ["run", "list", "test", "trace", "acp", "mcp", "plugin", "parse", "check", "fmt", "lsp"].includes(args[0]!) ? `${args[0]} ` : "";
  expect(r.stderr).toMatch(new RegExp(`\nRun 'patchwork ${command}--help' for usage\\.\n$`));
  return r.stderr.split("\n")[0]!;
}

describe("usage errors say what is wrong with what was typed", () => {
  it("unknown command, with a did-you-mean when one is close", () => {
    expect(usage(["runn", "x.pw"])).toBe("patchwork: unknown command runn; did you mean run?");
    expect(usage(["chek", "x.pw"])).toBe("patchwork: unknown command chek; did you mean check?");
    expect(usage(["frobnicate"])).toBe(
      "patchwork: unknown command frobnicate (the commands: run, list, test, trace, acp, mcp, plugin, parse, check, fmt, lsp)",
    );
  });

  it("unknown options keep their dashes; -v at the top level points at --version", () => {
    expect(usage(["-v"])).toBe("patchwork: unknown option -v; the version is --version (after `run FILE`, -v is --verbose)");
    expect(usage(["--bogus"])).toMatch(/^patchwork: unknown option --bogus \(options such as --agent go after the command/);
    expect(usage(["run", "examples/hello.pw", "--bogus"])).toBe("patchwork: unknown option --bogus for run");
    expect(usage(["run", "examples/hello.pw", "--no-agnet"])).toBe("patchwork: unknown option --no-agnet for run; did you mean --no-agent?");
    expect(usage(["run", "examples/hello.pw", "--verbos=1"])).toBe("patchwork: unknown option --verbos for run; did you mean --verbose?");
    expect(usage(["check", "--no-cach", "examples/hello.pw"])).toBe("patchwork: unknown option --no-cach for check; did you mean --no-cache?");
  });

  it("a missing file is a question, not a count of non-option arguments", () => {
    expect(usage(["run"])).toBe("patchwork: run: which file? Say `patchwork run FILE.pw` (FILE.pw: the program to run)");
    expect(usage(["check"])).toBe("patchwork: check: which files? Say `patchwork check FILE.pw…`");
    expect(usage(["mcp"])).toBe("patchwork: mcp: which files? Say `patchwork mcp FILE.pw…` (.pw files or folders whose skills to serve)");
    expect(usage(["parse", "a.pw", "b.pw"])).toBe("patchwork: parse: unexpected 'b.pw'");
  });

  it("a choice outside its list names the option and the choices", () => {
    expect(usage(["run", "examples/hello.pw", "--permissions", "maybe"])).toBe(
      'patchwork: --permissions takes one of "allow", "deny", "ask"; got "maybe"',
    );
  });

  it("closest() suggests only near misses", () => {
    expect(closest("fmtt", ["run", "fmt"])).toBe("fmt");
    expect(closest("tset", ["test", "trace"])).toBe("test");
    expect(closest("deploy", ["run", "fmt", "check"])).toBeUndefined();
    expect(usageMessage("something else", [], { options: [] })).toBe("something else");
  });
});

describe("--cwd", () => {
  it("a folder that does not exist, or a file, is a usage error naming it before anything runs", () => {
    const dir = tempFiles({ "p.pw": "$ echo ran\n", "file.txt": "x" });
    expect(usage(["run", "p.pw", "--cwd", "no/such/dir"], dir)).toBe("patchwork: --cwd no/such/dir: no such folder");
    expect(usage(["run", "p.pw", "--cwd", "file.txt"], dir)).toBe("patchwork: --cwd file.txt: not a folder");
    expect(usage(["run", "p.pw", "--cwd=file.txt/sub"], dir)).toBe("patchwork: --cwd file.txt/sub: no such folder");
    expect(usage(["run", "p.pw", "--cwd", "no/such/dir", "--agent", "node -e 0"], dir)).toBe("patchwork: --cwd no/such/dir: no such folder");
  });

  it("an existing folder is where the program's commands and files run", () => {
    const dir = tempFiles({ "p.pw": '$ pwd\nprint(read("here.txt"))\n' });
    const sub = join(dir, "sub");
    mkdirSync(sub);
    writeFileSync(join(sub, "here.txt"), "in sub");
    const r = patchwork(["run", "p.pw", "--cwd", "sub"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${sub}\nin sub\n`);
    expect(r.status).toBe(0);
  });
});

describe("help", () => {
  it("patchwork --help lists --version, examples, PATCHWORK_AGENT, no-agent mode and the docs", () => {
    const r = patchwork(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--version\s+print the version/);
    expect(r.stdout).toMatch(/Examples:\n\s+patchwork run hello\.pw/);
    expect(r.stdout).toContain("PATCHWORK_AGENT");
    expect(r.stdout).toMatch(/Without one, a think\s+or\s+ask\s+evaluates\s+to\s+\{__think_prompt: …\}/);
    expect(r.stdout).toMatch(/Docs: docs\/manual\//);
  });

  it("run --help puts the agent options first, says think and ask, and never runs a description into its type", () => {
    const r = patchwork(["run", "--help"]);
    expect(r.status).toBe(0);
    const agent = r.stdout.indexOf("Agent:");
    expect(agent).toBeGreaterThan(0);
    expect(r.stdout.indexOf("--agent ")).toBeGreaterThan(agent);
    expect(r.stdout.indexOf("--agent ")).toBeLessThan(r.stdout.indexOf("--entry"));
    expect(r.stdout.indexOf("--agent ")).toBeLessThan(r.stdout.indexOf("--record"));
    expect(r.stdout).toMatch(/--no-agent\s+run without an agent even if \$PATCHWORK_AGENT is set: think and ask\s+blocks evaluate to their prompt/);
    // Every "[type]" stands apart from the text before it (the --record line ran into "[string]").
    expect(r.stdout).not.toMatch(/\S\[(string|number|boolean|array)\]/);
  });

  it("check --help shows its files as required, without a default", () => {
    const r = patchwork(["check", "--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/files\s+programs to check, or folders \(every \.pw file under them\)\s+\[array\] \[required\]\n/);
    expect(r.stdout).not.toContain("[default: []]");
  });
});

// One set of options (issue 35, option-table.ts): the run options that make sense for a command
// are that command's too, with the same meaning.
describe("run's options on the other commands", () => {
  it("an unknown option points at the command's own help", () => {
    const r = patchwork(["mcp", "examples/hello.pw", "--trace", "t.jsonl"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("patchwork: unknown option --trace for mcp\nRun 'patchwork mcp --help' for usage.\n");
  });

  it("test --verbose shows each test's output under its line; --no-agent is taken", () => {
    const dir = tempFiles({ "a.test.pw": 'print("hello from a")\n', "a.snap": "hello from a\n" });
    const quiet = patchwork(["test", dir, "--no-agent"]);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).not.toContain("hello from a");
    const loud = patchwork(["test", dir, "--verbose"]);
    expect(loud.status).toBe(0);
    expect(loud.stdout).toMatch(/^PASS .*a\.test\.pw\n {4}│ hello from a\n1 passed, 0 failed\n$/);
    expect(usage(["test", dir, "--agent", "x", "--no-agent", "--update"])).toBe("patchwork: --agent and --no-agent say opposite things: give one");
  });

  it("acp and mcp check --cwd as run does; mcp has no terminal for --permissions ask", () => {
    expect(usage(["acp", "--agent", "x", "--cwd", "no/such/dir"])).toBe("patchwork: --cwd no/such/dir: no such folder");
    expect(usage(["mcp", "examples/hello.pw", "--cwd", "no/such/dir"])).toBe("patchwork: --cwd no/such/dir: no such folder");
    expect(usage(["mcp", "examples/hello.pw", "--permissions", "ask"])).toBe(
      "patchwork: --permissions ask needs a terminal to ask on; patchwork mcp takes allow or deny",
    );
  });

  it("plugin bakes --no-agent, --permissions, --idle-timeout and --timeout into its patchwork mcp", () => {
    const dir = tempFiles({ "g.pw": "@skill greet\nfun greet(name: string) {\n  return name\n}\n" });
    const r = patchwork(["plugin", "g.pw", "--out", "out", "--no-agent", "--permissions", "allow", "--idle-timeout", "30", "--timeout", "60"], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    const args = JSON.parse(readFileSync(join(dir, "out", ".mcp.json"), "utf8")).mcpServers.patchwork.args as string[];
    expect(args.slice(args.indexOf("mcp") + 2)).toEqual(["--no-agent", "--permissions", "allow", "--idle-timeout", "30", "--timeout", "60"]);
  });

  it("check takes a folder: every .pw file under it", () => {
    const dir = tempFiles({ "ok.pw": 'print("ok")\n' });
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "bad.pw"), "print(undefinedName)\n");
    const r = patchwork(["check", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${join(dir, "sub", "bad.pw")}:1:7: error`);
    expect(r.stderr).not.toContain("ok.pw");
  });
});

describe("what a newcomer types (issue 35)", () => {
  it("`patchwork hello.pw` and `run hello` point at `run hello.pw`", () => {
    expect(usage(["examples/hello.pw"])).toBe("patchwork: unknown command examples/hello.pw; to run the program, say `patchwork run examples/hello.pw`");
    expect(usage(["run", "examples/hello"])).toBe("patchwork: examples/hello: no such file; did you mean examples/hello.pw?");
  });

  it("test of a folder without tests exits 1 saying so", () => {
    const r = patchwork(["test", tempFiles({ "a.pw": "print(1)\n" })]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^patchwork test: no tests found: no \.test\.pw files under .* \(a test is NAME\.test\.pw, with NAME\.snap beside it\)\n$/);
  });

  it("trace of a cassette says it is a cassette", () => {
    const r = patchwork(["trace", "examples/tests/typed.cassette.json"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("examples/tests/typed.cassette.json is a cassette (written by run --record), not a trace: replay it with `patchwork run PROGRAM --replay examples/tests/typed.cassette.json`");
  });
});
