/** The profile of codex's ACP adapter. */
import type { AgentProfile } from "./index.js";

export const codexProfile: AgentProfile = {
  name: "codex",
  matches: (init) => (init.agentInfo?.name ?? "").includes("codex-acp"),
};
