/**
 * The profile of Qwen Code (`qwen --acp`, from `@qwen-code/qwen-code`; docs/agents.md).
 *
 * Qwen Code 0.24.4 connects to the MCP servers of `session/new` (it lists our tool), but it
 * registers a session's MCP tools as deferred tools, reachable only through its own
 * `tool_search` + `tool_call` bridge, and with the model pointed at an OpenAI-compatible server
 * its first request of a turn names neither our tool nor our server at all (settings
 * `tools.visible: ["mcp__patchwork__do"]` change nothing; the `alwaysLoadTools` flag that would
 * surface it is set only for servers of its own daemon, never from ACP). Its model cannot know
 * `do` exists, so it answers without running any block: a wrong value. Until Qwen Code offers
 * a session's MCP tools to its model, a think with `do` blocks fails with this reason; thinks
 * without `do` blocks run.
 */
import type { AgentProfile } from "./index.js";

export const qwenProfile: AgentProfile = {
  name: "qwen",
  matches: (init) => init.agentInfo?.name === "qwen-code",
  connectsMcpAtSessionStart: true,
  doToolProblem:
    "Qwen Code (0.24) hides the MCP tools a client gives it behind its own tool_search tool and does not name them to its model, so its model cannot call do (docs/agents.md, Qwen Code)",
};
