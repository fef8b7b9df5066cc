/**
 * Agent profiles: what one real ACP agent needs beyond the protocol (extra `session/new`
 * parameters, a mode to choose, how it names our `do` tool in permission requests). A profile
 * is chosen by the `agentInfo.name` the agent gives at `initialize`; an unknown agent gets
 * the generic profile, which is plain ACP. One file per agent; this index only picks.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { claudeProfile, claudeToolName } from "./claude.js";
import { codexProfile } from "./codex.js";
import { copilotProfile } from "./copilot.js";
import { geminiProfile } from "./gemini.js";
import { opencodeProfile } from "./opencode.js";
import { qwenProfile } from "./qwen.js";
import type { AgentProfile, PermissionToolCall } from "./types.js";

export type { AgentProfile, PermissionToolCall, ProfileSession } from "./types.js";

/**
 * The generic check, for agents without a profile: the tool call's programmatic `name`
 * (ACP's `ToolCallUpdate.name`) or the Claude Agent SDK's `_meta.claudeCode.toolName`,
 * qualified with our server's name. A bare `do`, a title or a raw input never counts.
 */
export function isDoByStructuredName(call: PermissionToolCall, server: string): boolean {
  const names = [call.toolCall.name, call.announced?.name, claudeToolName(call.toolCall), claudeToolName(call.announced)];
  const ours = new Set([`mcp__${server}__do`, `${server}__do`, `${server}/do`, `${server}.do`]);
  return names.some((n) => typeof n === "string" && ours.has(n));
}

export const genericProfile: AgentProfile = { name: "generic", matches: () => true, isOurDoTool: isDoByStructuredName };

const PROFILES: AgentProfile[] = [claudeProfile, codexProfile, geminiProfile, opencodeProfile, qwenProfile, copilotProfile];

export function profileFor(init: acp.InitializeResponse): AgentProfile {
  return PROFILES.find((p) => p.matches(init)) ?? genericProfile;
}

/** Whether the announced tool call `call` is one of our `do` tool (`AgentProfile.isOurAnnouncedCall`). */
export function isOurAnnouncedCall(profile: AgentProfile, call: acp.ToolCallUpdate, server: string): boolean {
  if (profile.isOurAnnouncedCall) return profile.isOurAnnouncedCall(call, server);
  return isOurDoTool(profile, { toolCall: call, requestMeta: undefined, announced: call }, server);
}

/** Whether `call` is our `do` tool, by the profile's check (the generic one by default). */
export function isOurDoTool(profile: AgentProfile, call: PermissionToolCall, server: string): boolean {
  return (profile.isOurDoTool ?? isDoByStructuredName)(call, server);
}
