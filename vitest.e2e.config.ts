import { defineConfig } from "vitest/config";
import { endToEndSuites } from "./test/suites.js";

/** `npm run test:e2e`: the end-to-end suites, which start real processes per test (test/suites.ts). */
export default defineConfig({
  test: {
    include: endToEndSuites,
    setupFiles: ["test/setup/property.ts"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
