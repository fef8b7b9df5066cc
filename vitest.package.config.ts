import { defineConfig } from "vitest/config";

/**
 * The installable package (npm run test:package): `npm pack` of the CLI, installed globally
 * into a temporary prefix, into a fresh project and through npx. Slow (three npm installs).
 */
export default defineConfig({
  test: {
    include: ["test/package/**/*.test.ts"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
