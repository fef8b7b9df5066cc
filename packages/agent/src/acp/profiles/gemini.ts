/**
 * The profile of Gemini CLI (`gemini --acp`, its own ACP agent; docs/agents.md). It has no
 * `session/close` (0.61): every session stays in the process until the run ends, about 0.4 MB
 * of heap each; nothing else in its ACP agent frees one.
 */
import type { AgentProfile } from "./types.js";

export const geminiProfile: AgentProfile = {
  name: "gemini",
  matches: (init) => (init.agentInfo?.name ?? "").includes("gemini-cli"),
  // It lists the tools of the MCP servers it is given when a session starts (when the folder is
  // trusted: the preset passes --skip-trust), so a think whose model never saw `do` is an error.
  // It prefixes every call id with the registry name of the tool called and `__`
  // (`mcp_<server>_<tool>__…`, whatever id the API gave); its title is `do (<server> MCP Server)`.
  connectsMcpAtSessionStart: true,
  isOurDoTool: ({ toolCall }, server) => toolCall.toolCallId.startsWith(`mcp_${server}_do__`),
  // Its sessions can only be freed by ending the process (see above): restart it between
  // thinks now and then, so a long loop's memory stays bounded (docs/agents.md).
  restartAfterSessions: 50,
  // Its sessions cannot be closed: one made ahead and never used stays until the process ends,
  // so fewer are made ahead than for agents that free them.
  sessionsAhead: { total: 2, perWorker: 1 },
};
