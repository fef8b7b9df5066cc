#!/usr/bin/env node
/**
 * Runs example programs through `patchwork run --agent <Codex's ACP adapter>` with the model
 * API pointed at a fake OpenAI Responses API on 127.0.0.1 (scripts/fake-openai.mjs), and
 * prints what happened: the adapter's initialize capabilities, the model requests Codex made,
 * permission requests and how they were answered, do calls, output, exit code, timing,
 * leftover processes.
 *
 * Downloads nothing. Install the adapter yourself first, e.g.
 *   mkdir /tmp/real-agents && cd /tmp/real-agents && npm install @zed-industries/codex-acp
 *
 * Usage:
 *   node scripts/try-codex-acp.mjs [ADAPTER] [--transport http|stdio|auto|all] [--program FILE]... [--keep DIR]
 *
 *   ADAPTER      path of `codex-acp`; default: found on PATH
 *   --transport  the `--mcp-transport` to test; `all` (default) runs http and stdio
 *   --program    a program to run (repeatable); default examples/categorize.pw and examples/nested.json
 *   --keep DIR   keep the request log, Codex's home and each run's stdout/stderr in DIR
 *   --timeout S  per-run timeout in seconds (default 120)
 *   --model M    the model slug Codex is told to use (default gpt-5.4: one Codex knows, so it
 *                does not send a "Model metadata … not found" warning as agent text)
 *
 * Nothing leaves 127.0.0.1: CODEX_HOME is a fresh temporary directory whose config.toml
 * defines a model provider `fake` (wire_api "responses", base_url the fake server) and selects
 * it; HOME points there too, so your own ~/.codex is neither read nor written.
 *
 * Codex asks `session/request_permission` before every call of an MCP tool, whatever its
 * approval_policy; the request's title is "Approve <the tool's MCP title>" and its rawInput
 * `{server_name: "patchwork", request: {_meta: {codex_approval_kind: "mcp_tool_call"}}}`.
 * Patchwork must recognise that as its `do` tool to allow it.
 * Exit status: 0 when every run printed what was expected and left no process.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "./fake-openai.mjs";
import { finishTrials, runTrials, trialSetup } from "./lib/acp-trial.mjs";

const setup = trialSetup(import.meta.url, {
  name: "try-codex-acp",
  adapterNames: ["codex-acp"],
  install: "npm install @zed-industries/codex-acp in a scratch directory; the bin is node_modules/.bin/codex-acp",
  extra: { model: "gpt-5.4" },
});

// ── environment: a scratch CODEX_HOME whose provider is the fake API ─────────────────────
const codexHome = join(setup.work, "codex-home");
mkdirSync(codexHome, { recursive: true });
const logFile = join(setup.work, "openai-requests.jsonl");
writeFileSync(logFile, "");
const fake = await startFakeOpenAI({ logFile, finalText: "RECEIPT" });
writeFileSync(
  join(codexHome, "config.toml"),
  [
    `model = ${JSON.stringify(setup.options.model)}`,
    `model_provider = "fake"`,
    ``,
    `[model_providers.fake]`,
    `name = "fake"`,
    `base_url = ${JSON.stringify(`${fake.url}/v1`)}`,
    `env_key = "OPENAI_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
  ].join("\n"),
);
const env = {
  ...process.env,
  HOME: codexHome,
  CODEX_HOME: codexHome,
  OPENAI_API_KEY: "fake-key",
  PATCHWORK_TRY_MARKER: setup.marker,
};
for (const key of ["PATCHWORK_AGENT", "OPENAI_BASE_URL", "CODEX_API_KEY"]) delete env[key];

console.log(`adapter:      ${setup.adapter}`);
console.log(`fake API:     ${fake.url}/v1 (log ${logFile})`);
console.log(`scratch:      ${setup.work}${setup.keep ? "" : " (removed at the end)"}`);

/** One line per request the fake Responses API saw. */
function summarize(requests, t0) {
  return requests.map((r) => {
    const at = `+${((Date.parse(r.time) - t0) / 1000).toFixed(2)}s`;
    if (!r.decision) return `${at} ${r.method} ${r.url} → ${r.status}`;
    const tools = (r.body?.tools ?? []).map((t) =>
      t.type === "namespace" ? `${t.name}{${(t.tools ?? []).map((s) => s.name).join(",")}}` : (t.name ?? t.type),
    );
    const ns = tools.find((n) => n.startsWith("mcp__patchwork"));
    const answer = r.decision.kind === "call" ? `function_call ${r.decision.name} {"number":0}` : `text ${JSON.stringify(r.decision.text)}`;
    const result = r.decision.toolResult !== undefined ? `; function_call_output ${JSON.stringify(r.decision.toolResult)}` : "";
    return `${at} POST ${r.path} model=${r.body?.model} stream=${!!r.body?.stream} tools=${tools.length}${ns ? ` (offers ${ns})` : ""} → ${answer}${result}`;
  });
}

const failures = await runTrials(setup, {
  env,
  fake,
  clientName: "try-codex-acp",
  summarize,
  deniedHint: "patchwork did not recognise Codex's approval request as its do tool",
});
await finishTrials(setup, fake, failures);
