// `patchwork run --agent …` through real processes with the scripted ACP agent.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, patchworkBin, repoRoot, tempFiles } from "./helpers.js";

/** The agent's pid, from the `--verbose` line announcing it. */
function agentPid(stderr: string): number {
  const m = /started, pid (\d+)/.exec(stderr);
  if (!m) throw new Error(`no agent pid in: ${stderr}`);
  return Number(m[1]);
}

/** True while any process of the group led by `pid` is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

function agentWith(script: object): { dir: string; command: string } {
  const dir = tempFiles({ "script.json": JSON.stringify(script) });
  return { dir, command: `"${process.execPath}" "${testAgent}" "${join(dir, "script.json")}"` };
}

const THINK = 'print("start")\nvar r = think {\n    Say hello.\n}\nprint("got: ${r}")\n';

describe("patchwork run --agent", () => {
  it("takes the agent from PATCHWORK_AGENT", () => {
    const { dir, command } = agentWith({ prompts: [{ steps: [{ reply: "hello there" }] }] });
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    const r = patchwork(["run", prog], { env: { PATCHWORK_AGENT: command }, cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("start\ngot: hello there\n");
    expect(r.status).toBe(0);
  });

  it("--no-agent wins over PATCHWORK_AGENT", () => {
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    const r = patchwork(["run", prog, "--no-agent"], { env: { PATCHWORK_AGENT: "/nonexistent/agent" } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("__think_prompt");
  });

  it("a preset whose command is not installed is a usage error naming how to install it", () => {
    const r = patchwork(["run", "examples/hello.pw", "--agent", "codex"], { env: { PATH: "/nonexistent" } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("'codex-acp' not found on PATH");
    expect(r.stderr).toContain("npm install -g @agentclientprotocol/codex-acp");
  });

  it("an agent that crashes mid-think gives a positioned error, exit 1, output kept", () => {
    const { command } = agentWith({ prompts: [{ steps: [{ text: "partial" }, { crash: true }] }] });
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    // A crash is asked again of a new process (at most twice: this agent crashes every time).
    const r = patchwork(["run", prog, "--agent", command], { env: { PATCHWORK_RETRY_DELAY_MS: "200" } });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("start\n");
    expect(r.stderr).toMatch(/p\.pw:2:9: error\[PW4004\]: the agent process was killed by SIGKILL \(still failing after 2 retries over \d+ s; --retries sets how many\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const once = patchwork(["run", prog, "--agent", command, "--retries", "0"]);
    expect(once.status).toBe(1);
    expect(once.stderr).toMatch(/p\.pw:2:9: error\[PW4004\]: the agent process was killed by SIGKILL\n/);
  });

  it("a command that does not exist is a clear error, exit 1", () => {
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    const r = patchwork(["run", prog, "--agent", "/nonexistent/acp-agent"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error\[PW4\d{3}\]/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("the CLI package's patchwork-test-agent launcher runs the bundled scripted agent", () => {
    const dir = tempFiles({
      "p.pw": 'var r = think {\n    Run it.\n    do {\n        print("block ran")\n    }\n}\nprint("got: ${r}")\n',
      "script.json": JSON.stringify({ prompts: [{ steps: [{ do: 0 }, { reply: "RECEIPT" }] }] }),
    });
    const launcher = join(repoRoot, "packages", "cli", "bin", "patchwork-test-agent.js");
    const r = patchwork(["run", "p.pw", "--agent", `"${process.execPath}" "${launcher}" script.json`], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("block ran\ngot: RECEIPT\n");
    expect(r.status).toBe(0);
  });

  it("--verbose shows each think's value with its structure: an array is not a string (issue 23)", () => {
    const reply = (text: string) => ({ steps: [{ reply: text }] });
    const dir = tempFiles({
      "v.pw": "var names: [string] = think {\n    two words\n}\nprint(names)\nvar s = think {\n    one line\n}\nprint(s)\n",
      "s.json": JSON.stringify({ prompts: [reply('```json\n["Hello", "Patchwork"]\n```'), reply("Hello, Patchwork")] }),
    });
    const r = patchwork(["run", "v.pw", "--verbose", "--agent", `"${process.execPath}" "${testAgent}" s.json`], { cwd: dir });
    expect(r.stdout).toBe("Hello, Patchwork\nHello, Patchwork\n"); // print's documented rule: an array's elements joined
    expect(r.stderr).toContain('[value of think 1: ["Hello","Patchwork"] (array)]\n');
    expect(r.stderr).toContain('[value of think 2: "Hello, Patchwork" (string)]\n');
    expect(r.status).toBe(0);
    const quiet = patchwork(["run", "v.pw", "--agent", `"${process.execPath}" "${testAgent}" s.json`], { cwd: dir });
    expect(quiet.stderr).not.toContain("[value of think");
  });

  it("an agent that fails to start is reported for the run, with no caret at line 1 of the program", () => {
    const prog = join(tempFiles({ "p.pw": 'print("hi")\n' + THINK }), "p.pw");
    const r = patchwork(["run", prog, "--agent", "no-such-agent-command-xyz"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^\S*p\.pw: error\[PW4002\]: the agent command was not found \(is it installed and on PATH\?\): the agent process exited with code 127\n/,
    );
    expect(r.stderr).not.toMatch(/p\.pw:1:1/);
    expect(r.stderr).not.toMatch(/^\s*\|\s*\^/m);
    const other = patchwork(["run", prog, "--agent", "node -e 0"]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/^\S*p\.pw: error\[PW4002\]: the agent command is not an ACP agent: /);
    expect(other.stderr).not.toMatch(/\^/);
  });

  it("--ask-user with an agent: asks go to the terminal, thinks to the agent", () => {
    const { command } = agentWith({ prompts: [{ match: "Greet", steps: [{ reply: "Hello, Ada!" }] }] });
    const prog = join(tempFiles({ "p.pw": 'var name = ask { Your name? }\nprint(think { Greet ${name}. })\n' }), "p.pw");
    const r = patchwork(["run", prog, "--agent", command, "--ask-user"], { input: "Ada\n" });
    expect(r.stdout).toBe("Hello, Ada!\n");
    expect(r.stderr).toContain("Your name?");
    expect(r.status).toBe(0);
  });

  it("--verbose streams the agent's text to stderr; no spinner when stderr is not a terminal", () => {
    const { command } = agentWith({ prompts: [{ steps: [{ text: "thinking hard… " }, { reply: "hi" }] }] });
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    const quiet = patchwork(["run", prog, "--agent", command]);
    expect(quiet.stderr).toBe("");
    const loud = patchwork(["run", prog, "--agent", command, "--verbose"]);
    expect(loud.status).toBe(0);
    expect(loud.stderr).toContain("think at");
    expect(loud.stderr).toContain("thinking hard… ");
    expect(loud.stderr).not.toMatch(/⠋|⠙|\r/);
  });

  it("--timeout stops a hanging agent: exit 1, error at the think, no orphan", () => {
    const { command } = agentWith({ prompts: [{ steps: [{ hang: true }] }] });
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    const started = Date.now();
    const r = patchwork(["run", prog, "--agent", command, "--timeout", "4", "--verbose"]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/p\.pw:2:9: error\[PW4006\]: the run timed out after 4000 ms/);
    expect(groupAlive(agentPid(r.stderr))).toBe(false);
  });

  it("--idle-timeout fails a think whose agent goes silent, at the think, exit 1", () => {
    const { command } = agentWith({ prompts: [{ steps: [{ text: "thinking…" }, { hang: true }] }] });
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    const r = patchwork(["run", prog, "--agent", command, "--idle-timeout", "1", "--retries", "0"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("start\n");
    expect(r.stderr).toMatch(/p\.pw:2:9: error\[PW4006\]: .*silent for 1000 ms/);
  });

  it("Ctrl-C (SIGINT) cancels the run: exit 130, agent killed", async () => {
    const { command } = agentWith({ prompts: [{ steps: [{ hang: true }] }] });
    const prog = join(tempFiles({ "p.pw": THINK }), "p.pw");
    const child = spawn(process.execPath, [patchworkBin, "run", prog, "--agent", command, "--verbose"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    // Wait until the think is under way, then interrupt.
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`think never started: ${stderr}`)), 15_000);
      const poll = setInterval(() => {
        if (stderr.includes("think at")) {
          clearInterval(poll);
          clearTimeout(deadline);
          resolve();
        }
      }, 50);
    });
    child.kill("SIGINT");
    const status = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    expect(status).toBe(130);
    expect(stdout).toBe("start\n");
    expect(stderr).toMatch(/p\.pw:2:9: error\[PW4\d{3}\]: .*cancelled/);
    expect(groupAlive(agentPid(stderr))).toBe(false);
  });
});

describe("what the agent says besides its answer", () => {
  const DO = 'var r = think {\n    Run it.\n    do {\n        print("block ran")\n    }\n}\nprint("got: ${r}")\n';
  const usage = (used: number, amount: number) => ({ update: { sessionUpdate: "usage_update", used, size: 200000, cost: { amount, currency: "USD" } } });

  it("--verbose shows thoughts, notices, tool content and usage per think and for the run; the value is the final answer", () => {
    const { command } = agentWith({
      prompts: [
        { match: "again", steps: [usage(1500, 0.0123), { reply: "second", id: "m3" }] },
        {
          steps: [
            { text: "Let me run block 0 first.", id: "m1" },
            { thought: "the block prints something" },
            { do: 0 },
            { update: { sessionUpdate: "notice", severity: "warning", title: "Model metadata not found" } },
            { update: { sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit a.txt", status: "completed", content: [{ type: "diff", path: "/tmp/a.txt", oldText: "a\nb", newText: "a\nc\nd" }] } },
            { update: { sessionUpdate: "available_commands_update", availableCommands: [] } },
            usage(1500, 0.0123),
            { reply: "RECEIPT", id: "m2" },
          ],
        },
      ],
    });
    const prog = join(tempFiles({ "p.pw": `var s = think {\n    again\n}\n${DO}print(s)\n` }), "p.pw");
    const quiet = patchwork(["run", prog, "--agent", command]);
    expect(quiet.stderr).toBe("");
    expect(quiet.stdout).toBe("block ran\ngot: RECEIPT\nsecond\n");
    const loud = patchwork(["run", prog, "--agent", command, "--verbose"]);
    expect(loud.status).toBe(0);
    expect(loud.stderr).toContain("Let me run block 0 first.");
    expect(loud.stderr).toContain("[thought] the block prints something");
    expect(loud.stderr).toContain("[notice warning: Model metadata not found]");
    expect(loud.stderr).toContain("[tool Edit a.txt: completed]\n  diff /tmp/a.txt (+2 -1)\n");
    expect(loud.stderr).toContain("[usage of think 1: 1,500 tokens in context · cost 0.0123 USD]");
    // The run's figures: the summary every run with an agent ends with, --verbose or not.
    expect(quiet.summary).toMatch(/^2 thinks asked, 0 replayed, 0 retried, 0 failed · tokens not reported · cost 0\.0246 USD · \d+\.\d s$/);
    expect(loud.summary).toMatch(/^2 thinks asked, 0 replayed, 0 retried, 0 failed · tokens not reported · cost 0\.0246 USD · /);
    expect(loud.stderr).not.toContain("anomaly");
  });

  it("a do that failed fails the think at its position with one message; a recovered one is a warning even without --verbose", () => {
    const failed = agentWith({ prompts: [{ steps: [{ failedDo: 0, error: "MCP server not connected" }, { reply: "all done" }] }] });
    const prog = join(tempFiles({ "p.pw": DO }), "p.pw");
    const r = patchwork(["run", prog, "--agent", failed.command]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/\/p\.pw:1:9: error\[PW4017\]: the agent's call of do block 0 failed before it reached Patchwork: MCP server not connected\n/);
    expect(r.stderr.match(/do block 0/g)).toHaveLength(1);

    const recovers = agentWith({ prompts: [{ steps: [{ do: 1 }, { do: 0 }, { reply: "fine" }] }] });
    const w = patchwork(["run", prog, "--agent", recovers.command]);
    expect(w.status).toBe(0);
    expect(w.stdout).toBe("block ran\ngot: fine\n");
    expect(w.stderr).toMatch(/\/p\.pw:1:9: warning\[PW4018\]: there is no do block 1: the only valid number is 0; the model then ran a do block again successfully\n$/);
  });
});
