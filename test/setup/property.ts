/**
 * Property and fuzz tests use fast-check. `npm test` runs them with a fixed seed and a small
 * number of runs; `npm run fuzz` runs many more (PW_FUZZ_RUNS) from a fresh seed, which it
 * prints on failure so that the case can be replayed with PW_FUZZ_SEED.
 */
import fc from "fast-check";

const runs = process.env.PW_FUZZ_RUNS ? Number(process.env.PW_FUZZ_RUNS) : undefined;
const seed = process.env.PW_FUZZ_SEED ? Number(process.env.PW_FUZZ_SEED) : runs ? undefined : 20261123;

fc.configureGlobal({
  ...(seed !== undefined ? { seed } : {}),
  ...(runs !== undefined ? { numRuns: runs } : { numRuns: 100 }),
});
