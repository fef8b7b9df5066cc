/**
 * A real agent as its users run it, with Patchwork's skills as its tools: this harness is the
 * editor. It starts the agent's ACP adapter directly (not through `patchwork run`), against the
 * agent's fake model API, with `session/new` naming `patchwork mcp` among its `mcpServers`
 * (or, for Claude Code, a plugin written by `patchwork plugin` in
 * `_meta.claudeCode.options.plugins`), sends one prompt and reports the turn: the agent's
 * answer, its updates, the permission requests, the fake's requests, processes left behind.
 *
 * The skills' thinks go to a second agent: `patchwork mcp … --agent <the scripted test agent>`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { ADAPTER_BIN, baseEnv, CLI, leftoversOf, REPO, type AgentSetup, type RunDirs } from "./harness.js";
import type { LoggedRequest, Rule } from "./fakes/server.js";

/** The scripted ACP test agent of packages/agent, which answers the skills' thinks. */
export const TEST_AGENT = join(REPO, "packages/agent/bin/patchwork-test-agent.js");

/** The adapter's command line for each agent of the suite (what the CLI's presets start). */
const ADAPTERS: Record<string, string[]> = {
  claude: [join(ADAPTER_BIN, "claude-agent-acp")],
  codex: [join(ADAPTER_BIN, "codex-acp")],
  gemini: [join(ADAPTER_BIN, "gemini"), "--acp", "--skip-trust"],
};

/**
 * What each adapter needs in `session/new` to offer MCP tools directly (Claude Code: no tool
 * search, no prompt suggestions, no permission bypass; as Patchwork's own agent profiles do).
 */
const CLAUDE_OPTIONS = { allowDangerouslySkipPermissions: false, promptSuggestions: false, env: { ENABLE_TOOL_SEARCH: "false" } };

/**
 * The mode each session is put in after `session/new`: Claude Code's `default` ("Manual": it
 * asks the client, which allows; it may start in `auto`, whose classifier needs model requests
 * of its own), Codex's `agent-full-access` (its default mode judges each call with an extra
 * model request).
 */
const MODES: Record<string, string> = { claude: "default", codex: "agent-full-access" };

export interface SkillSessionOptions {
  prompt: string;
  rules: Rule[];
  /** The `mcpServers` of `session/new`, given the run's folders. */
  mcpServers?: (dirs: RunDirs) => acp.McpServer[];
  /** Claude Code only: local plugin folders, given the run's folders (written by `prepare`). */
  plugins?: (dirs: RunDirs) => string[];
  /** Writes files into the run's folders first (the plugin, the test agent's script…). */
  prepare?: (dirs: RunDirs) => void;
  timeoutMs?: number;
}

export interface SkillSessionResult {
  stopReason: string | undefined;
  /** What stopped the adapter after the turn: its stdin closing, SIGTERM, or SIGKILL. */
  stopped: "stdin" | "SIGTERM" | "SIGKILL";
  /** Milliseconds from sending the prompt to its response. */
  promptMs: number;
  /** The turn's `agent_message_chunk` text: the agent's answer. */
  answer: string;
  updates: { sessionUpdate: string; [key: string]: unknown }[];
  /** Titles of the permission requests (all allowed). */
  permissions: string[];
  requests: LoggedRequest[];
  modelRequests: LoggedRequest[];
  hits: number[];
  stderr: string;
  error?: string;
  leftovers: { pid: number; cmd: string }[];
}

/** The `mcpServers` entry that starts `patchwork mcp FILES --agent AGENT` (stdio). */
export function patchworkMcp(files: string[], agent: string): acp.McpServer {
  return { name: "patchwork", command: process.execPath, args: [CLI, "mcp", ...files, "--agent", agent], env: [] };
}

/** `--agent` for the scripted test agent with this script (written into the run's folder). */
export function scriptedAgent(dirs: RunDirs, script: object): string {
  const file = join(dirs.root, "inner-agent.json");
  writeFileSync(file, JSON.stringify(script));
  return [process.execPath, TEST_AGENT, file].map((w) => JSON.stringify(w)).join(" ");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One prompt to the real agent `setup` names, as an editor sends it. */
export async function runSkillSession(setup: AgentSetup, options: SkillSessionOptions): Promise<SkillSessionResult> {
  const root = mkdtempSync(join(tmpdir(), `pw-agents-skill-${setup.name}-`));
  const dirs: RunDirs = { root, home: join(root, "home"), work: join(root, "work") };
  mkdirSync(dirs.home, { recursive: true });
  mkdirSync(dirs.work, { recursive: true });
  const fake = await setup.startFake(options.rules);
  const marker = randomBytes(8).toString("hex");
  const env = { ...baseEnv(dirs, marker), ...setup.env(fake, dirs) };
  options.prepare?.(dirs);
  const [command, ...args] = ADAPTERS[setup.name]!;
  const child = spawn(command!, args, { cwd: dirs.work, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  // "exit", not "close": processes the adapter leaves behind may hold its stdout and stderr open.
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {}
  };
  const timer = setTimeout(() => signalGroup("SIGKILL"), options.timeoutMs ?? 150_000);
  const updates: SkillSessionResult["updates"] = [];
  const permissions: string[] = [];
  const connection = acp
    .client({ name: "patchwork-agent-suite" })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params.update as SkillSessionResult["updates"][number]))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params.toolCall.title ?? "");
      const option = params.options.find((o) => o.kind === "allow_once") ?? params.options.find((o) => o.kind === "allow_always") ?? params.options[0]!;
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  let stopReason: string | undefined;
  let error: string | undefined;
  let promptMs = NaN;
  let stopped: SkillSessionResult["stopped"] = "stdin";
  try {
    await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const plugins = options.plugins?.(dirs) ?? [];
    const claudeOptions = { ...CLAUDE_OPTIONS, ...(plugins.length > 0 ? { plugins: plugins.map((path) => ({ type: "local", path })) } : {}) };
    const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, {
      cwd: dirs.work,
      mcpServers: options.mcpServers?.(dirs) ?? [],
      ...(setup.name === "claude" ? { _meta: { claudeCode: { options: claudeOptions } } } : {}),
      // codex-acp answers session/new before Codex has started the MCP servers, and a turn
      // started meanwhile offers none of their tools: this makes it wait for them.
      ...(setup.name === "codex" ? { _meta: { mcpStartupAwaitTimeoutMs: 30_000 } } : {}),
    });
    const mode = MODES[setup.name];
    if (mode) await connection.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: mode });
    const sent = performance.now();
    const response = await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: options.prompt }] });
    promptMs = performance.now() - sent;
    stopReason = response.stopReason;
    await sleep(100);
  } catch (e) {
    error = (e as Error)?.message ?? JSON.stringify(e);
  } finally {
    connection.close();
    child.stdin.end();
    // As an editor stops an agent: its stdin closed (Claude Code's and Codex's adapters exit,
    // and their MCP servers must go too: `leftovers` would show them), else SIGTERM, then
    // SIGKILL to its process group (Gemini CLI 0.61 outlives its stdin, and its `gemini` is a
    // launcher whose relaunched child a signal to the launcher alone does not stop).
    const within = (ms: number) => Promise.race([exited.then(() => true), sleep(ms).then(() => false)]);
    if (!(await within(3000))) {
      stopped = "SIGTERM";
      signalGroup("SIGTERM");
      if (!(await within(5000))) {
        stopped = "SIGKILL";
        signalGroup("SIGKILL");
      }
    }
  }
  await exited;
  clearTimeout(timer);
  const leftovers = await leftoversOf(marker);
  await fake.close();
  // PW_AGENT_KEEP_DIRS=1 keeps the run's folders (the agents' logs and config) to look into.
  if (process.env.PW_AGENT_KEEP_DIRS) console.log(`[kept] ${root}`);
  else rmSync(root, { recursive: true, force: true });
  const answer = updates
    .map((u) => (u.sessionUpdate === "agent_message_chunk" ? ((u.content as { text?: string }).text ?? "") : ""))
    .join("");
  return { stopReason, stopped, promptMs, answer, updates, permissions, requests: fake.requests, modelRequests: fake.modelRequests(), hits: fake.rules.hits, stderr, error, leftovers };
}

/** A short description of a session, for assertion messages. */
export function describeSession(r: SkillSessionResult): string {
  const requests = r.modelRequests
    .map((q) => `  ${q.model?.afterTool ? "tool result" : "user"} ${JSON.stringify(q.model?.latest.slice(0, 300))} → ${q.decision?.kind === "tool" ? `${q.decision.name}(${JSON.stringify(q.decision.input)})` : JSON.stringify(q.decision && "text" in q.decision ? q.decision.text : "")} [${q.decision?.why}; MCP tools offered: ${q.model?.tools.filter((t) => /^mcp_/.test(t)).join(", ") || "none"}]`)
    .join("\n");
  return `stop ${r.stopReason} error ${r.error} adapter stopped by ${r.stopped}\n--- answer\n${r.answer}\n--- stderr\n${r.stderr.slice(-3000)}\n--- model requests\n${requests}`;
}
