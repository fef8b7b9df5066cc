import { defineConfig } from "vitest/config";
import { allTests, endToEndSuites, ownCommandSuites, runnerOptions } from "./test/suites.js";

/** `npm test`: every test but the end-to-end suites (npm run test:e2e) and the suites with commands
 * of their own (test:agents, test:package, test:browser, test:acpx, test:inspector, test:editor): test/suites.ts. */
export default defineConfig({
  test: {
    ...runnerOptions,
    include: allTests,
    exclude: [...endToEndSuites, ...ownCommandSuites, "**/node_modules/**"],
  },
});
