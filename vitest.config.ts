import { defineConfig } from "vitest/config";
import { allTests, endToEndSuites, ownCommandSuites } from "./test/suites.js";

/** `npm test`: every test but the end-to-end suites (npm run test:e2e) and the suites with commands
 * of their own (test:agents, test:package, test:browser, test:acpx, test:editor): test/suites.ts. */
export default defineConfig({
  test: {
    include: allTests,
    exclude: [...endToEndSuites, ...ownCommandSuites, "**/node_modules/**"],
    setupFiles: ["test/setup/property.ts"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two cores on every machine and in CI: keep process-heavy suites from starving each other.
    maxWorkers: 2,
  },
});
