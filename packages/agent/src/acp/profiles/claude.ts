/** The profile of claude's ACP adapter. */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentProfile } from "./index.js";

export const claudeProfile: AgentProfile = {
  name: "claude",
  matches: (init) => (init.agentInfo?.name ?? "").includes("@agentclientprotocol/claude-agent-acp"),
  // The adapter names the tool the SDK is about to run in `_meta.claudeCode.toolName`
  // (`mcp__<server>__<tool>`); the title is the model's description.
  isOurDoTool: ({ toolCall }, server) => claudeToolName(toolCall) === `mcp__${server}__do`,
};

/** `_meta.claudeCode.toolName` of a tool call (set by Claude Agent SDK adapters), when it is a string. */
export function claudeToolName(call: acp.ToolCallUpdate | undefined): string | undefined {
  const meta = call?._meta as { claudeCode?: { toolName?: unknown } } | null | undefined;
  const name = meta?.claudeCode?.toolName;
  return typeof name === "string" ? name : undefined;
}
