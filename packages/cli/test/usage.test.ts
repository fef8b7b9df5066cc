// Usage errors in the user's words, the help texts, and --cwd checked before anything runs
// (issue 23: what a newcomer trips on). Real `patchwork` processes.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closest, usageMessage } from "../src/usage-words.js";
import { patchwork, tempFiles } from "./helpers.js";

function usage(args: string[], cwd?: string): string {
  const r = patchwork(args, cwd ? { cwd } : {});
  expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).toMatch(/\nRun 'patchwork --help' for usage\.\n$/);
  return r.stderr.split("\n")[0]!;
}

describe("usage errors say what is wrong with what was typed", () => {
  it("unknown command, with a did-you-mean when one is close", () => {
    expect(usage(["runn", "x.pw"])).toBe("patchwork: unknown command runn; did you mean run?");
    expect(usage(["chek", "x.pw"])).toBe("patchwork: unknown command chek; did you mean check?");
    expect(usage(["frobnicate"])).toBe(
      "patchwork: unknown command frobnicate (the commands: run, worker, list, test, trace, acp, mcp, plugin, parse, check, fmt, lsp)",
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
    expect(r.stdout).toMatch(/Without one, a think or ask evaluates to\s+\{__think_prompt: …\}/);
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
    expect(r.stdout).toMatch(/files\s+programs to check \(one or more\)\s+\[array\] \[required\]\n/);
    expect(r.stdout).not.toContain("[default: []]");
  });
});
