/**
 * Claude Code through its real ACP adapter (@agentclientprotocol/claude-agent-acp, pinned in
 * test/agents/package.json) against the fake Anthropic API: `patchwork run --agent claude`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { describeRun, runAgent } from "./harness.js";
import { expectSuccessorWorks } from "./successor.js";
import { claude } from "./setups.js";
import { agentSuite, describeAgent, expectClean, expectThinkError, ONE_DO, type AgentSpec } from "./suite.js";

const spec: AgentSpec = {
  command: "claude-agent-acp",
  doToolName: "mcp__patchwork__do",
  // The turn and the turn with the tool result (tool search off, no prompt suggestions, and no
  // title request: the profile names each session).
  requestsPerThink: 2,
  transports: ["http", "stdio"],
  permissionLine: /\[permission mcp__patchwork__do: allow\]/,
};

describeAgent("Claude Code (claude-agent-acp)", spec, () => {
  agentSuite(claude, spec);

  it.each([
    ["denied by default", [], false],
    ["allowed with --permissions allow", ["--permissions", "allow"], true],
  ] as const)("asks permission for its Bash tool: %s", async (_, args, allowed) => {
    const r = await runAgent(claude, {
      source: ONE_DO,
      args: ["--verbose", ...args],
      rules: [
        { when: "Pick the block", afterTool: false, reply: { tool: "Bash", input: { command: "touch made-by-bash", description: "make a file" } } },
        { afterTool: true, reply: { text: "DONE" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    // The request's title is the command.
    expect(r.stderr).toContain(`[permission touch made-by-bash: ${allowed ? "allow" : "deny"}]`);
    expect(r.stdout).toBe("value=[DONE]\n");
    expect(r.filesAfter).toContain(allowed ? "made-by-bash" : "program.pw");
    if (!allowed) expect(r.filesAfter).not.toContain("made-by-bash");
    expectClean(r);
  });

  it("ends with what the run cost (the tokens and cost Claude Code reported); --max-thinks 1 stops before the second think, exit 3", async () => {
    const source = 'var a = think { First question. }\nprint("a=[${a}]")\nvar b = think { Second question. }\nprint("b=[${b}]")\n';
    const r = await runAgent(claude, { source, args: ["--max-thinks", "1"], rules: [{ reply: { text: "ONE" } }] });
    expect(r.code, describeRun(r)).toBe(3);
    expect(r.stdout).toBe("a=[ONE]\n");
    expect(r.stderr).toMatch(/program\.pw:3:9: error\[PW4030\]: the run stopped at its limit of 1 think \(--max-thinks\)/);
    // The fake answers each request with 12 input and 6 output tokens; Claude Code prices them.
    expect(r.stderr).toMatch(/\npatchwork: 1 think asked, 0 replayed, 0 retried, 0 failed · tokens [1-9][\d,]* in \/ [1-9][\d,]* out · cost \d+\.\d+ USD · \d+\.\d s\n$/);
    expectClean(r);
  });

  it("a PreToolUse hook in Claude Code's settings blocks the call: PW4017, before it reached Patchwork", async () => {
    const r = await runAgent(claude, {
      source: ONE_DO,
      prepare: (dirs) => {
        const hook = { type: "command", command: "echo 'do is blocked here' >&2; exit 2" };
        const settings = { hooks: { PreToolUse: [{ matcher: "mcp__patchwork__do", hooks: [hook] }] } };
        mkdirSync(join(dirs.home, ".claude"), { recursive: true });
        writeFileSync(join(dirs.home, ".claude/settings.json"), JSON.stringify(settings));
      },
      rules: [
        { when: "Pick the block", afterTool: false, reply: { call: 0 } },
        { afterTool: true, reply: { text: "DONE" } },
      ],
    });
    expect(r.hits, describeRun(r)).toEqual([1, 1]);
    expect(r.stdout).not.toContain("block ran");
    expectThinkError(r, "PW4017", /before it reached Patchwork: [^]*do is blocked here/);
  });

  it("three workers, each a think calling a do, at the same time: each do runs in its own worker", async () => {
    // Each block prints its worker's own argument: a do routed to another worker's thread
    // would print that worker's name, the model would see it, and the value would be wrong.
    const source = `worker w(name) {
    var v = think {
        Worker \${name}: pick the block.
        do {
            print("block ran in worker \${name}")
        }
    }
    return "\${name}=[\${v}]"
}
print(self.delegate([w("alpha"), w("beta"), w("gamma")]).await)
`;
    const names = ["alpha", "beta", "gamma"];
    const traceDir = mkdtempSync(join(tmpdir(), "pw-agents-trace-"));
    const trace = join(traceDir, "trace.jsonl");
    try {
      const r = await runAgent(claude, {
        source,
        args: ["--verbose", "--trace", trace],
        rules: [
          // The first turn of each think waits a second: all three are under way at once.
          ...names.map((n) => ({ when: `Worker ${n}: pick the block`, afterTool: false, delayMs: 1000, reply: { call: 0 } })),
          ...names.map((n) => ({ when: `block ran in worker ${n}`, afterTool: true, reply: { text: `${n.toUpperCase()} DONE` } })),
        ],
      });
      expect(r.code, describeRun(r)).toBe(0);
      const lines = r.stdout.trim().split("\n");
      expect(lines.pop()).toBe("alpha=[ALPHA DONE], beta=[BETA DONE], gamma=[GAMMA DONE]");
      expect(lines.sort()).toEqual(names.map((n) => `block ran in worker ${n}`));
      expect(r.hits, describeRun(r)).toEqual([1, 1, 1, 1, 1, 1]);
      // Each worker's think and its do, labelled with the worker in --verbose.
      for (const [i, n] of names.entries()) {
        expect(r.stderr).toMatch(new RegExp(`\\[w#${i + 1}\\] ── think at \\S*program\\.pw:2 ──`));
        expect(r.stderr).toContain(`[w#${i + 1}] [do(0)]`);
        expect(r.stderr, n).toMatch(new RegExp(`\\[w#${i + 1}\\] \\[permission mcp__patchwork__do: allow\\]`));
      }
      // The trace: the three thinks ran side by side (all started before the first ended), one per worker.
      const records = readFileSync(trace, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; t: number; worker?: string });
      const starts = records.filter((x) => x.type === "think-start");
      const ends = records.filter((x) => x.type === "think-end");
      expect(starts.map((x) => x.worker).sort()).toEqual(["w#1", "w#2", "w#3"]);
      expect(Math.max(...starts.map((x) => x.t))).toBeLessThan(Math.min(...ends.map((x) => x.t)));
      expectClean(r);
    } finally {
      rmSync(traceDir, { recursive: true, force: true });
    }
  });

  it("patchwork acp in front of Claude Code: a plain prompt passes through, a program's think and do run, state stays", async () => {
    const r = await expectSuccessorWorks(claude);
    const calls = r.turns[1]!.updates.filter((u) => u.sessionUpdate === "tool_call");
    expect(calls.map((u) => [u.kind, u.title])).toEqual([
      ["think", "Pick the block for this item."],
      ["execute", "do block 0"],
    ]);
    // Our do tool is allowed by the proxy without asking the editor.
    expect(r.permissions).toEqual([]);
  });
});
