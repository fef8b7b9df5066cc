import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, patchworkBin, tempFiles } from "./helpers.js";

const NOTICE = /no agent configured/;

/** Whether `pid` is a live process (a killed one not yet reaped by its new parent is a zombie: not running). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

describe("patchwork run", () => {
  it("runs hello.pw", () => {
    const r = patchwork(["run", "examples/hello.pw"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("Hello, world!\n");
    expect(r.status).toBe(0);
  });

  it("reports a runtime error with position and caret, exit 1, no stack trace", () => {
    const dir = tempFiles({ "boom.pw": 'print("before")\nvar x = 1 + missing\nprint("after")\n' });
    const r = patchwork(["run", join(dir, "boom.pw")]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("before\n");
    expect(r.stderr).toMatch(/boom\.pw:2:\d+: error\[PW3\d{3}\]: .*missing/);
    expect(r.stderr).toContain("2 | var x = 1 + missing");
    expect(r.stderr).toMatch(/\^/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports syntax errors without running anything", () => {
    const dir = tempFiles({ "bad.pw": 'print("side effect")\nvar = 3\n' });
    const r = patchwork(["run", join(dir, "bad.pw")]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/bad\.pw:2:\d+: error\[PW2\d{3}\]/);
  });

  it("an uncaught throw ends the program with exit 1 and its message", () => {
    const dir = tempFiles({ "t.pw": 'throw "no luck"\n' });
    const r = patchwork(["run", join(dir, "t.pw")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/t\.pw:1:1: error\[PW3\d{3}\]: .*no luck/);
  });

  it("a failing shell statement is a runtime error naming the command and status", () => {
    const dir = tempFiles({ "sh.pw": "$ sh -c 'echo oops >&2; exit 3'\nprint(\"not reached\")\n" });
    const r = patchwork(["run", join(dir, "sh.pw")]);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain("not reached");
    expect(r.stderr).toMatch(/sh\.pw:1:1: error\[PW3\d{3}\]/);
    expect(r.stderr).toMatch(/3/);
    expect(r.stderr).toMatch(/oops/);
  });

  it("--entry picks the item to run; main is the default", () => {
    const dir = tempFiles({
      "m.pw": 'fun main() { print("main") }\nfun other() { print("other") }\n',
    });
    expect(patchwork(["run", join(dir, "m.pw")]).stdout).toBe("main\n");
    expect(patchwork(["run", join(dir, "m.pw"), "--entry", "other"]).stdout).toBe("other\n");
    const missing = patchwork(["run", join(dir, "m.pw"), "--entry", "nope"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/nope/);
  });

  it("--cwd sets the program's working directory for files and shell", () => {
    const dir = tempFiles({ "data.txt": "from data\n" });
    const prog = tempFiles({ "p.pw": 'print(read("data.txt").trim())\nwrite("out.txt", "written")\n$ pwd\n' });
    const r = patchwork(["run", join(prog, "p.pw"), "--cwd", dir]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`from data\n${dir}\n`);
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("written");
    expect(existsSync(join(prog, "out.txt"))).toBe(false);
  });

  it("reading a missing file is a positioned runtime error", () => {
    const dir = tempFiles({ "r.pw": 'var t = read("nope.txt")\n' });
    const r = patchwork(["run", join(dir, "r.pw"), "--cwd", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/r\.pw:1:\d+: error\[PW3\d{3}\]: .*nope\.txt/);
  });
});

describe("no-agent mode", () => {
  const program = 'var topic = "tides"\nvar r = think {\n    Explain ${topic} briefly.\n}\nprint(r.__think_prompt)\n';

  it("without an agent, a think evaluates to its prompt, and the CLI says so once", () => {
    const dir = tempFiles({ "t.pw": program + "print(think { again })\n" });
    const r = patchwork(["run", join(dir, "t.pw")]);
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith("Explain tides briefly.\n")).toBe(true);
    expect(r.stdout).toContain("__think_prompt");
    expect(r.stderr.match(new RegExp(NOTICE, "g"))).toHaveLength(1);
  });

  it("--no-agent is silent about it", () => {
    const dir = tempFiles({ "t.pw": program });
    const r = patchwork(["run", join(dir, "t.pw"), "--no-agent"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("Explain tides briefly.\n");
  });

  it("a program without thinks says nothing about agents", () => {
    expect(patchwork(["run", "examples/hello.pw"]).stderr).toBe("");
  });

  it("--ask-user shows an ask on the terminal and returns the typed line", () => {
    const dir = tempFiles({ "a.pw": 'var name = ask { What is your name? }\nprint("hi ${name}")\n' });
    const r = patchwork(["run", join(dir, "a.pw"), "--ask-user"], { input: "Ada\n" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("hi Ada\n");
    expect(r.stderr).toContain("What is your name?");
  });
});

describe("limits without an agent", () => {
  it("--timeout turns an endless loop into a positioned error, exit 1", () => {
    const dir = tempFiles({ "loop.pw": 'print("spinning")\nwhile true { }\n' });
    const r = patchwork(["run", join(dir, "loop.pw"), "--timeout", "1"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("spinning\n");
    expect(r.stderr).toMatch(/loop\.pw:2:1: error\[PW3072\]: time limit exceeded/);
  });

  it("--timeout stops a long shell command and everything it started", () => {
    const dir = tempFiles({ "sh.pw": "print(\"a\")\n$ sh -c 'sleep 30 & echo $! > bg.pid; sleep 30'\nprint(\"b\")\n" });
    const started = Date.now();
    const r = patchwork(["run", join(dir, "sh.pw"), "--timeout", "1", "--cwd", dir]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("a\n");
    expect(r.stderr).toMatch(/sh\.pw:2:1: error\[PW3072\]: time limit exceeded/);
    const pid = Number(readFileSync(join(dir, "bg.pid"), "utf8"));
    expect(running(pid)).toBe(false); // the backgrounded sleep is gone too
  });

  it("runaway recursion is a positioned error, not a crash", () => {
    const dir = tempFiles({ "deep.pw": "fun f(n) { return f(n + 1) }\nf(0)\n" });
    const r = patchwork(["run", join(dir, "deep.pw")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/deep\.pw:1:19: error\[PW3070\]: recursion too deep/);
    expect(r.stderr).not.toMatch(/RangeError|\n\s+at /);
  });

  it("write() into a missing directory names the file asked for", () => {
    const dir = tempFiles({ "w.pw": 'write("no/such/dir/out.txt", "x")\n' });
    const r = patchwork(["run", join(dir, "w.pw"), "--cwd", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/w\.pw:1:1: error\[PW3021\]: .*no\/such\/dir\/out\.txt.*its folder '.*\/no\/such\/dir' does not exist/);
    expect(r.stderr).not.toMatch(/\.tmp/);
  });

  it("write() into a folder that exists but cannot be written says so (as a user who is not root)", () => {
    const dir = tempFiles({ "w.pw": 'write("locked/out.txt", "x")\n' });
    mkdirSync(join(dir, "locked"));
    chmodSync(join(dir, "locked"), 0o555);
    chmodSync(dir, 0o755);
    // Root may write anywhere: run the program as nobody (setpriv, util-linux) when we are root.
    const asRoot = process.getuid?.() === 0;
    const command = asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath] : [process.execPath];
    const r = spawnSync(command[0]!, [...command.slice(1), patchworkBin, "run", "w.pw"], { cwd: dir, encoding: "utf8", timeout: 20_000 });
    expect(r.stderr).toMatch(/w\.pw:1:1: error\[PW3021\]: file error: write\(\): EACCES: cannot write '.*\/locked\/out\.txt' \(its folder '.*\/locked' exists but cannot be written to: permission denied\)/);
    expect(r.status).toBe(1);
  });
});
