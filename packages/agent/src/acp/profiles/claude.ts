/** The profile of claude's ACP adapter. */
import type { AgentProfile } from "./index.js";

export const claudeProfile: AgentProfile = {
  name: "claude",
  matches: (init) => (init.agentInfo?.name ?? "").includes("@agentclientprotocol/claude-agent-acp"),
};
