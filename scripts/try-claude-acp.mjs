#!/usr/bin/env node
/**
 * Runs example programs through `patchwork run --agent <Claude Code's ACP adapter>` with the
 * model API pointed at a fake Anthropic server on 127.0.0.1 (scripts/fake-anthropic.mjs),
 * and prints what happened: the adapter's initialize capabilities, the model requests Claude
 * Code made, permission requests, do calls, output, exit code, timing, leftover processes.
 *
 * Downloads nothing. Install the adapter yourself first, e.g.
 *   mkdir /tmp/real-agents && cd /tmp/real-agents && npm install @agentclientprotocol/claude-agent-acp
 *
 * Usage:
 *   node scripts/try-claude-acp.mjs [ADAPTER] [--transport http|stdio|auto|all] [--program FILE]... [--keep DIR]
 *
 *   ADAPTER      path of `claude-agent-acp` (or `claude-code-acp`); default: found on PATH
 *   --transport  the `--mcp-transport` to test; `all` (default) runs http and stdio
 *   --program    a program to run (repeatable); default examples/categorize.pw and examples/nested.json
 *   --keep DIR   keep the fake server's request log and each run's stdout/stderr in DIR
 *   --timeout S  per-run timeout in seconds (default 120)
 *
 * Nothing leaves 127.0.0.1: ANTHROPIC_BASE_URL points at the fake server and Claude Code's
 * nonessential traffic, telemetry, error reporting and auto-update are switched off. HOME and
 * CLAUDE_CONFIG_DIR point at a fresh temporary directory, so your own ~/.claude is neither
 * read nor written. When run as root, IS_SANDBOX=1 is set: the adapter passes
 * --allow-dangerously-skip-permissions to Claude Code, which then refuses to start as root
 * ("cannot be used with root/sudo privileges") unless IS_SANDBOX=1 (the value "yes" is not
 * enough). Exit status: 0 when every run printed what was expected and left no process.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "./fake-anthropic.mjs";
import { finishTrials, runTrials, trialSetup } from "./lib/acp-trial.mjs";

const setup = trialSetup(import.meta.url, {
  name: "try-claude-acp",
  adapterNames: ["claude-agent-acp", "claude-code-acp"],
  install: "npm install @agentclientprotocol/claude-agent-acp in a scratch directory; the bin is node_modules/.bin/claude-agent-acp",
});

// ── environment: a scratch HOME, the fake API, nothing that reaches the network ─────────
const home = join(setup.work, "home");
mkdirSync(join(home, ".claude"), { recursive: true });
const logFile = join(setup.work, "anthropic-requests.jsonl");
writeFileSync(logFile, "");
const fake = await startFakeAnthropic({ logFile, finalText: "RECEIPT" });
const env = {
  ...process.env,
  HOME: home,
  CLAUDE_CONFIG_DIR: join(home, ".claude"),
  ANTHROPIC_BASE_URL: fake.url,
  ANTHROPIC_API_KEY: "fake-key",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_BUG_COMMAND: "1",
  PATCHWORK_TRY_MARKER: setup.marker,
};
for (const key of ["PATCHWORK_AGENT", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_OAUTH_TOKEN"]) delete env[key];
if (process.getuid?.() === 0) env.IS_SANDBOX = "1";

console.log(`adapter:      ${setup.adapter}`);
console.log(`fake API:     ${fake.url} (log ${logFile})`);
console.log(`scratch:      ${setup.work}${setup.keep ? "" : " (removed at the end)"}`);

/** One line per request the fake Messages API saw. */
function summarize(requests, t0) {
  return requests.map((r) => {
    const at = `+${((Date.parse(r.time) - t0) / 1000).toFixed(2)}s`;
    if (r.path !== "/v1/messages") return `${at} ${r.method} ${r.url} → ${r.status}`;
    const tools = (r.body?.tools ?? []).map((t) => t.name);
    const doTool = tools.find((n) => n.endsWith("__do"));
    const answer = r.decision.kind === "tool_use" ? `tool_use ${r.decision.name} {"number":0}` : `text ${JSON.stringify(r.decision.text)}`;
    const result =
      r.decision.toolResult !== undefined
        ? `; tool_result${r.decision.toolResultIsError ? " (is_error)" : ""} ${JSON.stringify(r.decision.toolResult)}`
        : "";
    return (
      `${at} POST /v1/messages model=${r.body?.model} stream=${!!r.body?.stream} tools=${tools.length}` +
      `${doTool ? ` (offers ${doTool})` : ""} messages=${r.body?.messages?.length} → ${answer}${result}`
    );
  });
}

const failures = await runTrials(setup, { env, fake, clientName: "try-claude-acp", summarize });
await finishTrials(setup, fake, failures);
