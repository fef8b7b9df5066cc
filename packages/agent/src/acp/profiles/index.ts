/**
 * Agent profiles: what one real ACP agent needs beyond the protocol (extra `session/new`
 * parameters, a mode to choose, how it names our `do` tool in permission requests). A profile
 * is chosen by the `agentInfo.name` the agent gives at `initialize`; an unknown agent gets
 * the generic profile, which is plain ACP. One file per agent; this index only picks.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { claudeProfile } from "./claude.js";
import { codexProfile } from "./codex.js";
import { geminiProfile } from "./gemini.js";

/** What a profile may use of the connection after a session is created. */
export interface ProfileSession {
  sessionId: string;
  /** The `session/new` response (modes, config options, …). */
  response: acp.NewSessionResponse;
  /** Sends a request to the agent (e.g. `session/set_mode`). */
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
}

export interface AgentProfile {
  /** A short name for messages and docs: `claude`, `codex`, `gemini`, `generic`. */
  readonly name: string;
  /** Whether this profile is for the agent that answered `initialize` so. */
  matches(init: acp.InitializeResponse): boolean;
  /** Extra fields merged into every `session/new` request (e.g. `_meta`). */
  newSessionExtras?(): Record<string, unknown>;
  /** Runs once after each `session/new`, before the first prompt (e.g. choose a mode). */
  afterNewSession?(session: ProfileSession): Promise<void>;
}

export const genericProfile: AgentProfile = { name: "generic", matches: () => true };

const PROFILES: AgentProfile[] = [claudeProfile, codexProfile, geminiProfile];

export function profileFor(init: acp.InitializeResponse): AgentProfile {
  return PROFILES.find((p) => p.matches(init)) ?? genericProfile;
}
