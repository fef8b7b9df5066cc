import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // The real-agent suite and the package test have their own configs and commands
    // (npm run test:agents, npm run test:package).
    exclude: ["test/agents/**", "test/package/**", "**/node_modules/**"],
    setupFiles: ["test/setup/property.ts"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two cores on every machine and in CI: keep process-heavy suites from starving each other.
    maxWorkers: 2,
  },
});
