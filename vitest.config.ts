import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // The real-agent suite, the package test, the browser suite, the acpx end-to-end tests and
    // the real-editor suite have their own configs and commands (npm run test:agents,
    // test:package, test:browser, test:acpx, test:editor).
    exclude: ["test/agents/**", "test/package/**", "test/browser/**", "test/acpx/**", "test/editor/**", "**/node_modules/**"],
    setupFiles: ["test/setup/property.ts"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two cores on every machine and in CI: keep process-heavy suites from starving each other.
    maxWorkers: 2,
  },
});
