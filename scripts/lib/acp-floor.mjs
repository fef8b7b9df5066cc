#!/usr/bin/env node
/**
 * The agent's floor for a program's latency (issue 26): a minimal ACP client that starts the
 * agent, opens one session with Patchwork's own MCP `do` server (the same endpoint a run
 * offers), and sends one prompt whose model calls `do` twice, so the model makes as many
 * turns as the nested categorization's two thinks with one `do` each. It sets what Patchwork's
 * agent profiles set (Claude Code's `_meta.claudeCode.options` and mode, Codex's mode) and
 * allows the `do` tool when asked. Prints one JSON line: the times of each step (ms since the
 * spawn) and the tool's results.
 *
 * Usage: node scripts/lib/acp-floor.mjs '<json: {command, args, cwd, env, prompt, options?}>'
 * (the real-agent suite's latency test runs it with the agent's environment and fake API).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { McpHub } from "../../packages/agent/dist/mcp/hub.js";
import { CLAUDE_THINK_SESSION_OPTIONS } from "../../packages/agent/dist/acp/profiles/claude.js";

const spec = JSON.parse(process.argv[2]);
const t0 = performance.now();
const at = () => Math.round((performance.now() - t0) * 10) / 10;
const marks = {};

const child = spawn(spec.command, spec.args ?? [], { cwd: spec.cwd, env: spec.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
let stderr = "";
child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
const kill = () => {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
};
process.on("exit", kill);

const results = [];
const RESULTS = ["Categorized as: RECEIPT", "Amount: $542.00"];
const hub = new McpHub(() => undefined);
const connection = acp
  .client({ name: "patchwork-floor" })
  .onNotification(acp.methods.client.session.update, () => undefined)
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    const option = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));

try {
  const init = await connection.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, session: { notices: {} } },
  });
  marks.initialized = at();
  const name = init.agentInfo?.name ?? "";
  const mcp = init.agentCapabilities?.mcpCapabilities?.http ? "http" : "stdio";
  const declaration = await hub.declare(mcp, async () => {
    const text = RESULTS[Math.min(results.length, RESULTS.length - 1)];
    results.push(text);
    return { content: [{ type: "text", text }] };
  });
  const claude = name.includes("claude-agent-acp");
  const options = { ...CLAUDE_THINK_SESSION_OPTIONS, ...(spec.options ?? {}) };
  const opening = connection.agent.request(acp.methods.agent.session.new, {
    ...(claude ? { _meta: { claudeCode: { options } } } : {}),
    cwd: spec.cwd,
    mcpServers: [declaration.server],
  });
  // As patchwork does (AcpAgent.prepare): the server's first requests made while Claude Code
  // starts, so that the floor does not pay that lazy work on its critical path either.
  if (claude && mcp === "http") setImmediate(() => void hub.warm());
  const session = await opening;
  marks.sessionNew = at();
  const wanted = claude ? "default" : name.includes("codex") ? "read-only" : null;
  const modes = session.modes;
  if (wanted && modes && modes.currentModeId !== wanted && modes.availableModes.some((m) => m.id === wanted)) {
    await connection.agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: wanted });
  }
  marks.sessionReady = at();
  const response = await connection.agent.request(acp.methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: spec.prompt }],
  });
  marks.answered = at();
  // Claude Code's adapter logs the phases of session/new (`[session/create] … phase=X durationMs=N`)
  // to $CLAUDE_AGENT_LOGS/agent.log when that is set.
  const phases = {};
  const logs = spec.env?.CLAUDE_AGENT_LOGS;
  const log = logs && existsSync(join(logs, "agent.log")) ? readFileSync(join(logs, "agent.log"), "utf8") : "";
  for (const m of log.matchAll(/\[session\/create\][^\n]*?phase=(\S+) durationMs=(\d+)/g)) phases[m[1]] = Number(m[2]);
  process.stdout.write(`${JSON.stringify({ ok: true, agent: name, stopReason: response.stopReason, results, marks, phases, stderr: stderr.slice(-4000) })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ ok: false, error: String(error?.message ?? error), marks, stderr: stderr.slice(-4000) })}\n`);
} finally {
  connection.close();
  kill();
  await hub.close();
  process.exit(0);
}
