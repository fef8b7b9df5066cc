import { defineConfig } from "vitest/config";

/**
 * End-to-end tests of `patchwork acp` with acpx, an independent ACP client from npm
 * (npm run test:acpx; installed with its own Node 22 into test/acpx/node_modules by
 * npm ci --prefix test/acpx). Slow: every acpx command starts processes.
 */
export default defineConfig({
  test: {
    include: ["test/acpx/**/*.test.ts"],
    exclude: ["test/acpx/node_modules/**"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
