/**
 * Real agents through a model outage (issue 32): the fake model API answers every request with
 * 529/429/503 for 40 seconds; the agent's own retries are cut short (Claude Code:
 * `CLAUDE_CODE_MAX_RETRIES=1`) so that the overload reaches Patchwork, which asks the think again
 * in a fresh session (`--retries`, docs/agent.md "Retries"). A six-document worker batch
 * finishes: exit 0, every document printed, the retries shown. What each agent reports when it
 * gives up is recorded in docs/agents.md ("How each agent reports an overload").
 */
import { appendFileSync } from "node:fs";
import { expect, it } from "vitest";
import { describeRun, installed, runAgent, type AgentSetup } from "./harness.js";
import { claude, codex, gemini } from "./setups.js";
import type { Outage } from "./fakes/server.js";

const BATCH = `worker categorize(doc) {
    var r = think {
        Categorize document \${doc} in one word.
    }
    return "\${doc}: \${r}"
}

var tasks = []
for d in 1...6 {
    tasks.push(categorize("doc\${d}"))
}
for line in self.delegate(tasks).await {
    print(line)
}
`;
const DOCS = [1, 2, 3, 4, 5, 6].map((n) => `doc${n}: news`).join("\n") + "\n";

/** `setup` whose fake API has an outage from its first model request, with the agent's extra environment. */
function withOutage(setup: AgentSetup, outage: Outage, env: Record<string, string>): AgentSetup {
  return {
    ...setup,
    startFake: async (rules) => {
      const fake = await setup.startFake(rules);
      fake.outage(outage);
      return fake;
    },
    env: (fake, dirs) => ({ ...setup.env(fake, dirs), ...env }),
  };
}

/** Writes what the run printed to $PW_OUTAGE_LOG (to record an agent's wording in docs/agents.md). */
function keep(name: string, stderr: string): void {
  if (process.env.PW_OUTAGE_LOG) appendFileSync(process.env.PW_OUTAGE_LOG, `=== ${name}\n${stderr}\n`);
}

const it_ = installed("claude-agent-acp") ? it : it.skip;

it_("Claude Code (CLAUDE_CODE_MAX_RETRIES=1): a six-document worker batch through a 40-second 529 outage finishes, its retries shown", async () => {
  const setup = withOutage(claude, { ms: 40_000, status: 529 }, { CLAUDE_CODE_MAX_RETRIES: "1" });
  const r = await runAgent(setup, {
    source: BATCH,
    args: ["--verbose"],
    rules: [{ when: "Categorize document", reply: { text: "news" } }],
    timeoutMs: 300_000,
  });
  keep("claude 529", r.stderr);
  expect(r.code, describeRun(r)).toBe(0);
  expect(r.stdout).toBe(DOCS);
  const failed = r.requests.filter((q) => q.status === 529).length;
  expect(failed).toBeGreaterThan(6);
  expect(r.stderr).toMatch(/\[retrying think at \S*program\.pw:2 in \d+ s \(1\/36\): 529 overloaded\]/);
  // How long the outage cost: it ends 40 s after the first model request.
  console.log(`claude outage run: ${Math.round(r.ms / 1000)} s, ${failed} requests answered 529, ${(r.stderr.match(/\[retrying think/g) ?? []).length} retries`);
}, 320_000);

it_("Claude Code (CLAUDE_CODE_MAX_RETRIES=1) with --retries 0: the overload fails the think, PW4013 with Claude Code's text", async () => {
  const setup = withOutage(claude, { ms: 60_000, status: 529 }, { CLAUDE_CODE_MAX_RETRIES: "1" });
  const r = await runAgent(setup, {
    source: `print(think {\n    Categorize document doc1 in one word.\n})\n`,
    args: ["--retries", "0"],
    rules: [{ when: "Categorize document", reply: { text: "news" } }],
  });
  keep("claude 529 --retries 0", r.stderr);
  expect(r.code, describeRun(r)).toBe(1);
  expect(r.stderr).toMatch(/program\.pw:1:7: error\[PW4013\]: the agent answered with an error: Internal error: API Error: 529 Overloaded/);
});

/** The other preset agents: the same batch through a 40-second outage of their API. */
const OTHERS: [AgentSetup, string, Outage["status"], RegExp][] = [
  // Codex's provider is configured with request_max_retries = 0 (setups.ts): the first 429 reaches us.
  [codex, "codex-acp", 429, /\(1\/36\): 429 rate limited\]|\(1\/36\): [^\]]*\]/],
  // Gemini CLI retries a 503 by itself first.
  [gemini, "gemini", 503, /\(1\/36\): [^\]]*\]/],
];

for (const [setup, command, status, retried] of OTHERS) {
  const run = installed(command) ? it : it.skip;
  run(`${setup.name}: a six-document worker batch through a 40-second ${status} outage finishes`, async () => {
    const r = await runAgent(withOutage(setup, { ms: 40_000, status }, {}), {
      source: BATCH,
      args: ["--verbose"],
      rules: [{ when: "Categorize document", reply: { text: "news" } }],
      timeoutMs: 400_000,
    });
    keep(`${setup.name} ${status}`, r.stderr);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe(DOCS);
    const failed = r.requests.filter((q) => q.status === status).length;
    expect(failed).toBeGreaterThan(0);
    const retries = (r.stderr.match(/\[retrying think/g) ?? []).length;
    if (retries > 0) expect(r.stderr).toMatch(retried);
    console.log(`${setup.name} outage run: ${Math.round(r.ms / 1000)} s, ${failed} requests answered ${status}, ${retries} retries by Patchwork`);
  }, 420_000);
}
