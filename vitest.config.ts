import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // The real-agent suite, the package test and the acpx end-to-end tests have their own
    // configs and commands (npm run test:agents, npm run test:package, npm run test:acpx).
    exclude: ["test/agents/**", "test/package/**", "test/acpx/**", "**/node_modules/**"],
    setupFiles: ["test/setup/property.ts"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two cores on every machine and in CI: keep process-heavy suites from starving each other.
    maxWorkers: 2,
  },
});
