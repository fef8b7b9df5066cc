/** The profile of codex's ACP adapter. */
import type { AgentProfile, PermissionToolCall } from "./index.js";

export const codexProfile: AgentProfile = {
  name: "codex",
  matches: (init) => (init.agentInfo?.name ?? "").includes("codex-acp"),
  isOurDoTool: isCodexDoTool,
};

/**
 * codex-acp builds these from the MCP call item codex runs (`{server, tool, arguments}`), never
 * from the model's text: its approval names the tool call announced before (rawInput
 * `{server, tool}`), or, uncorrelated, the server asking (`rawInput.serverName`, with
 * `_meta.is_mcp_tool_approval`); older versions sent the elicitation itself
 * (`{server_name, request: {_meta: {codex_approval_kind: "mcp_tool_call"}}}`). Our server has
 * one tool, so a tool approval for our server is one for `do`.
 */
function isCodexDoTool({ toolCall, requestMeta, announced }: PermissionToolCall, server: string): boolean {
  for (const input of [toolCall.rawInput, announced?.rawInput]) {
    const raw = record(input);
    if (raw.server === server && raw.tool === "do") return true;
    const request = record(raw.request);
    if (raw.server_name === server && record(request._meta).codex_approval_kind === "mcp_tool_call") return true;
  }
  const raw = record(toolCall.rawInput);
  return requestMeta?.is_mcp_tool_approval === true && raw.serverName === server && toolCall.toolCallId.startsWith("elicitation:");
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}
