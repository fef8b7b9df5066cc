// Claude Code's profile: the session options on every session/new, and the mode that asks the client.
import { describe, expect, it } from "vitest";
import { CLAUDE_MODE, claudeProfile } from "../dist/acp/profiles/claude.js";
import { profileFor } from "../dist/acp/profiles/index.js";

const MODES = ["auto", "default", "acceptEdits", "plan"].map((id) => ({ id, name: id }));

async function after(modes: unknown): Promise<{ method: string; params: Record<string, unknown> }[]> {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  await claudeProfile.afterNewSession!({
    sessionId: "s1",
    response: { sessionId: "s1", ...(modes ? { modes } : {}) } as never,
    request: async (method, params) => void sent.push({ method, params }),
  });
  return sent;
}

describe("Claude Code's profile", () => {
  it("is chosen for @agentclientprotocol/claude-agent-acp", () => {
    expect(profileFor({ protocolVersion: 1, agentInfo: { name: "@agentclientprotocol/claude-agent-acp", version: "0.101.0" } }).name).toBe("claude");
  });

  it("sends _meta.claudeCode.options: no bypass mode, no prompt suggestions, tool search off; a think's session is named", () => {
    const base = { allowDangerouslySkipPermissions: false, promptSuggestions: false, env: { ENABLE_TOOL_SEARCH: "false" } };
    expect(claudeProfile.newSessionExtras!("think")).toEqual({
      _meta: { claudeCode: { options: { ...base, title: "Patchwork think" } } },
    });
    // A chat session of the agent panel keeps the title Claude Code gives it.
    expect(claudeProfile.newSessionExtras!("chat")).toEqual({ _meta: { claudeCode: { options: base } } });
  });

  it("switches a session from auto to the mode that asks the client", async () => {
    expect(CLAUDE_MODE).toBe("default");
    expect(await after({ availableModes: MODES, currentModeId: "auto" })).toEqual([
      { method: "session/set_mode", params: { sessionId: "s1", modeId: "default" } },
    ]);
  });

  it("sends nothing when the session already asks, or the adapter has no such mode", async () => {
    expect(await after({ availableModes: MODES, currentModeId: "default" })).toEqual([]);
    expect(await after({ availableModes: MODES.filter((m) => m.id !== "default"), currentModeId: "auto" })).toEqual([]);
    expect(await after(undefined)).toEqual([]);
  });
});
