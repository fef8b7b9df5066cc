/** The profile of Qwen Code (`qwen --acp`, from `@qwen-code/qwen-code`; docs/agents.md). */
import type { AgentProfile } from "./index.js";

export const qwenProfile: AgentProfile = {
  name: "qwen",
  matches: (init) => init.agentInfo?.name === "qwen-code",
};
