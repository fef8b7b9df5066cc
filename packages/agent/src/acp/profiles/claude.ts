/**
 * The profile of Claude Code's ACP adapter (`@agentclientprotocol/claude-agent-acp`).
 *
 * Every `session/new` carries `_meta.claudeCode.options` (passed through to the Claude Agent
 * SDK's query options):
 * - `allowDangerouslySkipPermissions: false`: the adapter otherwise starts Claude Code with
 *   `--allow-dangerously-skip-permissions`, which Claude Code refuses as root unless
 *   `IS_SANDBOX=1`. We never use the bypass mode: our permission policy answers every request.
 * - `promptSuggestions: false`: no predicted follow-up prompt (one model request per turn).
 * - `env: {ENABLE_TOOL_SEARCH: "false"}`: MCP tools are offered to the model directly instead
 *   of behind a tool-search tool, so calling `do` needs no search round trip.
 * - `title` (a think's session only, `CLAUDE_THINK_SESSION_OPTIONS`): the session's name in
 *   Claude Code's session list. Without one, Claude Code asks the model for a title (a side
 *   request of each session's first turn, made by its process while the turn runs: work the
 *   think's answer never sees). A think with one `do` then costs 2 model requests (measured
 *   with 0.101.0, docs/agents.md). A chat session of the agent panel keeps Claude Code's own title.
 *
 * After `session/new` the session's permission mode is set to `default` ("Manual": ask the
 * client before any tool that is not read-only) when it is anything else. Claude Code starts
 * new sessions in `auto` mode where the model supports it: a classifier (extra model
 * requests) then decides each tool call and our permission policy is never asked.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentProfile } from "./types.js";
import { chooseMode } from "./modes.js";
import { overloadIn, type ThinkFailure, type Transient } from "../../batch/transient.js";

export const CLAUDE_SESSION_OPTIONS = {
  allowDangerouslySkipPermissions: false,
  promptSuggestions: false,
  env: { ENABLE_TOOL_SEARCH: "false" },
} as const;

/** A think's session: named, so that Claude Code asks the model for no title (a chat session in the agent panel is not). */
export const CLAUDE_THINK_SESSION_OPTIONS = { ...CLAUDE_SESSION_OPTIONS, title: "Patchwork think" } as const;

/** Claude Code's permission mode ("Manual") that asks the client (`session/request_permission`). */
export const CLAUDE_MODE = "default";

export const claudeProfile: AgentProfile = {
  name: "claude",
  matches: (init) => (init.agentInfo?.name ?? "").includes("@agentclientprotocol/claude-agent-acp"),
  newSessionExtras: (purpose) => ({
    _meta: { claudeCode: { options: purpose === "chat" ? CLAUDE_SESSION_OPTIONS : CLAUDE_THINK_SESSION_OPTIONS } },
  }),
  afterNewSession: (session) => chooseMode(session, CLAUDE_MODE),
  // The adapter names the tool the SDK is about to run in `_meta.claudeCode.toolName`
  // (`mcp__<server>__<tool>`); the title is the model's description.
  connectsMcpAtSessionStart: true,
  isOurDoTool: ({ toolCall }, server) => claudeToolName(toolCall) === `mcp__${server}__do`,
  // A session is a Claude Code process the adapter starts and initialises (`query()`): the
  // dearest wait of a think (docs/benchmarks.md), worth making ahead; an unused one costs a
  // process start and is closed (its process ended) when the run ends.
  sessionsAhead: { total: 4, perWorker: 2 },
  transient: claudeTransient,
};

/** Claude Code's `errorKind`s (the Claude Agent SDK's assistant message errors) worth asking again. */
const CLAUDE_TRANSIENT: Record<string, string> = {
  overloaded: "overloaded",
  rate_limit: "rate limited",
  server_error: "server error",
  transport_lost: "connection to the model lost",
};

/**
 * A turn that ended with an API error the adapter's own retries did not get past comes as a
 * JSON-RPC internal error whose `data.errorKind` names its kind and whose message is Claude
 * Code's text (`API Error: 529 …`), docs/agents.md. A known kind decides; else the text does.
 */
function claudeTransient(failure: ThinkFailure): Transient | null | undefined {
  if (failure.code !== "PW4013") return undefined;
  const kind = (failure.data as { errorKind?: unknown } | undefined)?.errorKind;
  if (typeof kind !== "string" || kind === "unknown") return undefined;
  const reason = CLAUDE_TRANSIENT[kind];
  if (reason === undefined) return null;
  // (A 529 comes as `server_error` with the text `API Error: 529 Overloaded…`: the text words it better.)
  const said = overloadIn(failure.message);
  return said ?? { kind: "overload", reason };
}

/** `_meta.claudeCode.toolName` of a tool call (set by Claude Agent SDK adapters), when it is a string. */
export function claudeToolName(call: acp.ToolCallUpdate | undefined): string | undefined {
  const meta = call?._meta as { claudeCode?: { toolName?: unknown } } | null | undefined;
  const name = meta?.claudeCode?.toolName;
  return typeof name === "string" ? name : undefined;
}
