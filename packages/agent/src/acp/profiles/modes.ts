/** Choosing an agent's session mode through ACP, for the profiles that need one. */
import type { ProfileSession } from "./types.js";

/**
 * Puts the session in mode `modeId` with `session/set_mode`, unless it is in it already. An
 * adapter without modes, or without this one, keeps its own behaviour.
 */
export async function chooseMode(session: ProfileSession, modeId: string): Promise<void> {
  const modes = session.response.modes;
  if (!modes || modes.currentModeId === modeId) return;
  if (!modes.availableModes.some((m) => m.id === modeId)) return;
  await session.request("session/set_mode", { sessionId: session.sessionId, modeId });
}
