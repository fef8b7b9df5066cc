/** What a profile is (index.ts picks one; each agent's file makes one). */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { ThinkFailure, Transient } from "../../batch/transient.js";

/** What a profile may use of the connection after a session is created. */
export interface ProfileSession {
  sessionId: string;
  /** The `session/new` response (modes, config options, …). */
  response: acp.NewSessionResponse;
  /** Sends a request to the agent (e.g. `session/set_mode`). */
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
}

/**
 * A `session/request_permission` as the identity check sees it. Only fields the agent fills
 * from the tool actually invoked can prove identity; the title, and for most agents the raw
 * input, are written by the model and prove nothing.
 */
export interface PermissionToolCall {
  /** The request's `toolCall` (toolCallId, name, title, kind, rawInput, _meta…). */
  readonly toolCall: acp.ToolCallUpdate;
  /** The request's own `_meta` (Codex marks its MCP tool approvals there). */
  readonly requestMeta: Record<string, unknown> | null | undefined;
  /**
   * What the agent announced earlier in the same session for the same `toolCallId`
   * (its `tool_call` and `tool_call_update`s merged), if anything: Codex's approval request
   * names only the id of the tool call it announced before.
   */
  readonly announced: acp.ToolCallUpdate | undefined;
}

export interface AgentProfile {
  /** A short name for messages and docs: `claude`, `codex`, `gemini`, `opencode`, `qwen`, `copilot`, `generic`. */
  readonly name: string;
  /** Whether this profile is for the agent that answered `initialize` so. */
  matches(init: acp.InitializeResponse): boolean;
  /** Extra fields merged into every `session/new` request (e.g. `_meta`): for a think's session, or a chat of the agent panel. */
  newSessionExtras?(purpose: "think" | "chat"): Record<string, unknown>;
  /** Runs once after each `session/new`, before the first prompt (e.g. choose a mode). */
  afterNewSession?(session: ProfileSession): Promise<void>;
  /**
   * Runs after a `session/close` of ours succeeded, to free more of the session (e.g. Codex
   * keeps a closed thread loaded until it is deleted).
   */
  afterCloseSession?(session: Omit<ProfileSession, "response">): Promise<void>;
  /**
   * Whether a permission request is for the `do` tool of our MCP server named `server`,
   * judged only from fields this agent fills itself (never the title). Anything it does not
   * recognise is another tool, which the default policy denies. Default: the generic check.
   */
  isOurDoTool?(call: PermissionToolCall, server: string): boolean;
  /**
   * Whether a tool call the agent announced (`tool_call` and its updates, merged) is a call of
   * our `do` tool: to notice a `do` call the agent reports failed before it reached us (an
   * error of the think), and to attribute the calls of a directory-wide endpoint. Default:
   * `isOurDoTool` on the announcement. A false positive can only make a think fail.
   */
  isOurAnnouncedCall?(call: acp.ToolCallUpdate, server: string): boolean;
  /**
   * Where the agent keeps the MCP servers a `session/new` names. `session` (default): each
   * session has its own, and each think's session gets its own endpoint and token. `directory`:
   * one server of a name per working directory for all sessions (OpenCode): a later session's
   * server replaces an earlier one's and closes its connection, cutting off a `do` call in
   * flight (a nested think). Such an agent gets one endpoint per directory, named in the first
   * `session/new` there only, and each `do` call is attributed to the think whose session
   * announced it (`SharedDoEndpoints`).
   */
  readonly mcpScope?: "session" | "directory";
  /**
   * True when the agent connects to a session's MCP servers as the session starts (and so
   * lists our tool before the model runs): a think with `do` blocks whose endpoint it never
   * contacted then fails (PW4019) instead of looking answered. Unknown agents: not assumed.
   */
  readonly connectsMcpAtSessionStart?: boolean;
  /**
   * For an agent that keeps memory for every session even after Patchwork is done with it
   * (it cannot close sessions, or keeps closed ones): restart its process, between thinks,
   * once it has had this many sessions, so that a long run's memory stays bounded
   * (`RecyclingAgent`; `--restart-agent-after` overrides it). Absent: never restart.
   */
  readonly restartAfterSessions?: number;
  /**
   * How many sessions may be made ahead of need (`SessionsAhead`): all at once and for one
   * evaluator thread. Lower for an agent whose sessions are dear to make and keep; zero for
   * one whose sessions cost too much to risk making one that is never used. Default
   * `DEFAULT_AHEAD`.
   */
  readonly sessionsAhead?: { total: number; perWorker: number };
  /**
   * Whether a failed think may pass if asked again (an overload or rate limit of the agent's
   * model), from what this agent reports (docs/agents.md): a `Transient`, null for no, or
   * undefined to leave it to the generic rule (`genericTransient`).
   */
  transient?(failure: ThinkFailure): Transient | null | undefined;
  /**
   * For an agent that reports a failed turn as its answer (message text, stop reason
   * `end_turn`): the error that answer says, or null when it is an answer. The think then fails
   * (PW4013) instead of taking the error text as its value.
   */
  answerIsError?(answer: string): string | null;
}
