/** The profile of gemini's ACP adapter. */
import type { AgentProfile } from "./index.js";

export const geminiProfile: AgentProfile = {
  name: "gemini",
  matches: (init) => (init.agentInfo?.name ?? "").includes("gemini-cli"),
  // Gemini CLI prefixes every call id with the registry name of the tool called and `__`
  // (`mcp_<server>_<tool>__…`, whatever id the API gave); its title is `do (<server> MCP Server)`.
  connectsMcpAtSessionStart: true,
  isOurDoTool: ({ toolCall }, server) => toolCall.toolCallId.startsWith(`mcp_${server}_do__`),
};
