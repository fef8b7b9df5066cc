/**
 * The profile of OpenCode (`opencode acp`, from `opencode-ai`; docs/agents.md).
 *
 * OpenCode keeps its MCP servers per working directory, by name, for all sessions: each
 * `session/new` adds the servers it names (`mcp.add`), and adding one whose name is taken
 * replaces it and closes the old connection. A nested think's `session/new` would so cut off
 * the outer think's `do` call in flight ("MCP error -32000: Connection closed") and route every
 * later call of the outer session to the inner think's endpoint. Its profile therefore asks
 * for one endpoint per directory (`mcpScope: "directory"`), whose calls are attributed to the
 * think whose session announced them.
 *
 * It names our tool `<server>_do` and announces every tool call with the tool's name as the
 * `tool_call`'s title (with `rawInput` once the call runs); its ACP messages carry no other
 * name of the tool. It asks no permission for MCP tools (its default permission for them is
 * `allow`), and its permission requests name the tool only in a title, so none of them is taken
 * for ours: if a user's OpenCode configuration asks before MCP tools, our `do` is denied and
 * the think fails (PW4017), never silently.
 */
import type { AgentProfile } from "./types.js";

export const opencodeProfile: AgentProfile = {
  name: "opencode",
  matches: (init) => init.agentInfo?.name === "OpenCode",
  // `mcp.add` connects before `session/new` answers: the model's first request lists `do`.
  connectsMcpAtSessionStart: true,
  mcpScope: "directory",
  isOurDoTool: () => false,
  isOurAnnouncedCall: (call, server) => call.title === `${server}_do` && call.kind === "other",
  // Its process grows by about 8 MB a think even with every session closed (20 thinks of the
  // real-agent suite: median RSS 732 → 896 MB): restart it between thinks now and then.
  restartAfterSessions: 25,
};
