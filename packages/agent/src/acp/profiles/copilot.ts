/**
 * The profile of GitHub Copilot CLI (`copilot --acp`, from `@github/copilot`; docs/agents.md).
 *
 * Copilot CLI 1.0.102 connects to the MCP servers of `session/new` (each session its own) and
 * names our tool `<server>-do`. Its `tool_call` has the tool's name as title; its permission
 * request has our tool's own title ("Run a numbered do block") and the model's arguments,
 * nothing an identity check may trust (decision 0004). The preset therefore starts it with
 * `--allow-tool=patchwork`: Copilot itself lets every tool of the server named `patchwork` run
 * without asking (by the server's name, which its model cannot change), and no permission
 * request of Copilot is ever taken for ours. A `do` call it reports failed (an agent started
 * without that flag denies it) makes the think fail (PW4017).
 */
import type { AgentProfile } from "./types.js";

export const copilotProfile: AgentProfile = {
  name: "copilot",
  matches: (init) => init.agentInfo?.name === "Copilot",
  connectsMcpAtSessionStart: true,
  isOurDoTool: () => false,
  isOurAnnouncedCall: (call, server) => call.title === `${server}-do`,
};
