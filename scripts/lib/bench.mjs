// Shared by the bench-*.mjs scripts: the size they run at and the statistics they print.
// `--smoke` (or BENCH_SMOKE=1) runs each benchmark at a small size: `npm run bench:smoke`
// does that in CI to prove every script still runs and prints its figures (their values are
// meaningless at that size).
export const smoke = process.argv.includes("--smoke") || process.env.BENCH_SMOKE === "1";

/** The full-size value, or the smoke-test one. */
export const size = (full, small) => (smoke ? small : full);

/** Median (upper middle for even lengths). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
