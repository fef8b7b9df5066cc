/** The profile of gemini's ACP adapter. */
import type { AgentProfile } from "./index.js";

export const geminiProfile: AgentProfile = {
  name: "gemini",
  matches: (init) => (init.agentInfo?.name ?? "").includes("gemini-cli"),
};
