/** The shape of a run's totals (totals.ts counts them; the `run-totals` event of types.ts carries them). */

/** The figures of a run so far (or at its end). */
export interface RunTotals {
  thinks: number;
  replayed: number;
  retried: number;
  failed: number;
  inputTokens: number | null;
  outputTokens: number | null;
  /** By currency; null when the agent reported no cost. */
  cost: Record<string, number> | null;
  wallMs: number;
}
