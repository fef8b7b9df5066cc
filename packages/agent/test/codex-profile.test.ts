// Codex's profile: every session is switched to the mode that asks the client (read-only).
import { describe, expect, it } from "vitest";
import { CODEX_MODE, codexProfile } from "../dist/acp/profiles/codex.js";
import { profileFor } from "../dist/acp/profiles/index.js";

const MODES = ["read-only", "workspace-write", "agent", "agent-full-access"].map((id) => ({ id, name: id }));

async function after(modes: unknown): Promise<{ method: string; params: Record<string, unknown> }[]> {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  await codexProfile.afterNewSession!({
    sessionId: "s1",
    response: { sessionId: "s1", ...(modes ? { modes } : {}) } as never,
    request: async (method, params) => void sent.push({ method, params }),
  });
  return sent;
}

describe("Codex's profile", () => {
  it("is chosen for @agentclientprotocol/codex-acp", () => {
    expect(profileFor({ protocolVersion: 1, agentInfo: { name: "@agentclientprotocol/codex-acp", version: "2.6.0" } }).name).toBe("codex");
  });

  it("switches the default Auto review mode to read-only with session/set_mode", async () => {
    expect(CODEX_MODE).toBe("read-only");
    expect(await after({ availableModes: MODES, currentModeId: "agent" })).toEqual([
      { method: "session/set_mode", params: { sessionId: "s1", modeId: "read-only" } },
    ]);
  });

  it("sends nothing when the session is already read-only, or the adapter has no such mode", async () => {
    expect(await after({ availableModes: MODES, currentModeId: "read-only" })).toEqual([]);
    expect(await after({ availableModes: MODES.filter((m) => m.id !== "read-only"), currentModeId: "agent" })).toEqual([]);
    expect(await after(undefined)).toEqual([]);
  });
});
