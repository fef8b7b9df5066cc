import { defineConfig } from "vitest/config";

/**
 * The browser suite (npm run test:browser): pages we generate, opened in Debian's headless
 * `chromium` (CI installs it). Kept out of `npm test`: a browser start costs seconds.
 */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
