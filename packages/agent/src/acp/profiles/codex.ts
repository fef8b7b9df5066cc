/**
 * The profile of Codex's ACP adapter (`@agentclientprotocol/codex-acp`, which drives the
 * native `codex app-server`).
 *
 * Its default mode `agent` ("Auto review") never sends `session/request_permission`: each
 * tool call is judged by an extra model request (Codex's "guardian"), so `--permissions`
 * would decide nothing and every `do` would cost one more model call. `read-only` sends every
 * approval (our MCP tool, writes, commands outside the read-only sandbox, network) to the
 * client, so our policy decides: our `do` is allowed, everything else follows
 * `--permissions`. `workspace-write` would let Codex edit the workspace without asking and
 * `agent-full-access` asks nothing. See docs/decisions/ (Codex's mode).
 */
import type { AgentProfile, PermissionToolCall, ProfileSession } from "./types.js";
import { chooseMode } from "./modes.js";

/** The mode every Codex session is put in: the one that asks the client before anything that matters. */
export const CODEX_MODE = "read-only";

export const codexProfile: AgentProfile = {
  name: "codex",
  matches: (init) => (init.agentInfo?.name ?? "").includes("codex-acp"),
  connectsMcpAtSessionStart: true,
  isOurDoTool: isCodexDoTool,
  afterNewSession: (session: ProfileSession) => chooseMode(session, CODEX_MODE),
  // `session/close` only unsubscribes from the thread: Codex keeps it loaded (≈3 MB per think
  // in a loop). `session/delete` archives it (its rollout moves to archived_sessions) and
  // frees most of that.
  async afterCloseSession(session): Promise<void> {
    await session.request("session/delete", { sessionId: session.sessionId });
  },
  // Even closed and deleted, each thread leaves ≈1.2 MB in `codex app-server` (linear, never
  // given back): restart it between thinks now and then (docs/agents.md).
  restartAfterSessions: 50,
  // A session is a thread of the app-server (cheap to make); an unused one is closed and deleted at the end.
  sessionsAhead: { total: 4, perWorker: 2 },
  answerIsError: codexError,
};

/**
 * codex-acp (2.6.0) reports a turn whose model requests failed as the turn's message text and
 * ends it `end_turn` (unless the client speaks JetBrains' AIR session failures): `exceeded
 * retry limit, last status: 429 Too Many Requests` once Codex's own retries are spent,
 * `unexpected status 503 …` for one it does not retry (docs/agents.md).
 */
function codexError(answer: string): string | null {
  const text = answer.trim();
  return /^(exceeded retry limit, last status: \d{3}\b|unexpected status \d{3}\b|stream disconnected before completion\b)/.test(text) ? text : null;
}

/**
 * codex-acp builds these from the MCP call item codex runs (`{server, tool, arguments}`), never
 * from the model's text: its approval names the tool call announced before (rawInput
 * `{server, tool}`), or, uncorrelated, the server asking (`rawInput.serverName`, with
 * `_meta.is_mcp_tool_approval`); older versions sent the elicitation itself
 * (`{server_name, request: {_meta: {codex_approval_kind: "mcp_tool_call"}}}`). Our server has
 * one tool, so a tool approval for our server is one for `do`.
 */
function isCodexDoTool({ toolCall, requestMeta, announced }: PermissionToolCall, server: string): boolean {
  for (const input of [toolCall.rawInput, announced?.rawInput]) {
    const raw = record(input);
    if (raw.server === server && raw.tool === "do") return true;
    const request = record(raw.request);
    if (raw.server_name === server && record(request._meta).codex_approval_kind === "mcp_tool_call") return true;
  }
  const raw = record(toolCall.rawInput);
  return requestMeta?.is_mcp_tool_approval === true && raw.serverName === server && toolCall.toolCallId.startsWith("elicitation:");
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}
