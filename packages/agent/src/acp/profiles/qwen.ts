/**
 * The profile of Qwen Code (`qwen --acp`, from `@qwen-code/qwen-code`; docs/agents.md).
 *
 * Qwen Code 0.24 connects to the MCP servers of `session/new` in the background, after it has
 * answered, and registers their tools as *deferred*: reachable only through its own
 * `tool_search` + `tool_call` bridge, never named to the model. Two things make our tool a
 * plain tool of the model's first request:
 * - the preset starts it with a system-defaults settings file (`QWEN_CODE_SYSTEM_DEFAULTS_PATH`,
 *   the user's own defaults plus `tools.visible: ["mcp__patchwork__do"]`; packages/cli), so the
 *   tool is declared directly once registered;
 * - after `session/new`, the profile waits until the session's MCP discovery has completed
 *   (its `qwen/status/session/resources` request: `mcp.discoveryState`), so that the first
 *   prompt finds it registered. Without the wait, the first request of a turn is built before
 *   our server is connected.
 *
 * Its sessions start in mode `auto`, where a classifier (one more model request) decides each
 * tool call; mode `default` asks the client, so Patchwork's policy decides. Its permission
 * request's title is the model's arguments; `toolCall._meta.toolName` is the registered name
 * of the tool about to run (`mcp__<server>__<tool>`).
 */
import type { AgentProfile, ProfileSession } from "./types.js";
import { chooseMode } from "./modes.js";

/** Qwen Code's mode that asks the client before tools that are not read-only. */
export const QWEN_MODE = "default";

/** How long to wait for a session's MCP discovery before prompting anyway (PW4019 then says if `do` was never offered). */
const DISCOVERY_WAIT_MS = 60_000;

export const qwenProfile: AgentProfile = {
  name: "qwen",
  matches: (init) => init.agentInfo?.name === "qwen-code",
  connectsMcpAtSessionStart: true,
  async afterNewSession(session) {
    await discoveryDone(session);
    await chooseMode(session, QWEN_MODE);
  },
  // It has no `session/close` (0.24): every session stays in the process (20 thinks: median RSS
  // 599 → 664 MB). Restart it between thinks now and then, as Gemini CLI.
  restartAfterSessions: 50,
  isOurDoTool: ({ toolCall, announced }, server) =>
    [toolCall, announced].some((call) => qwenToolName(call?._meta) === `mcp__${server}__do`),
};

function qwenToolName(meta: unknown): string | undefined {
  const name = (meta as { toolName?: unknown } | null | undefined)?.toolName;
  return typeof name === "string" ? name : undefined;
}

/** Polls the session's MCP status until discovery is no longer in progress (or the request is unknown). */
async function discoveryDone(session: ProfileSession): Promise<void> {
  const deadline = Date.now() + DISCOVERY_WAIT_MS;
  while (Date.now() < deadline) {
    let state: unknown;
    try {
      const status = (await session.request("qwen/status/session/resources", { sessionId: session.sessionId })) as {
        mcp?: { discoveryState?: unknown };
      };
      state = status?.mcp?.discoveryState;
    } catch {
      return; // an older Qwen Code without the request: nothing to wait on
    }
    if (state !== "in_progress" && state !== "not_started") return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
