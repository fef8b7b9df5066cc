import { defineConfig } from "vitest/config";
import { endToEndSuites, runnerOptions } from "./test/suites.js";

/** `npm run test:e2e`: the end-to-end suites, which start real processes per test (test/suites.ts). */
export default defineConfig({
  test: { ...runnerOptions, include: endToEndSuites },
});
