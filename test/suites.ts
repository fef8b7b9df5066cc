/**
 * Which test files `npm test` runs and which `npm run test:e2e` runs (both in CI, `.ci/run`).
 *
 * `npm test` is the suite a developer runs after every change, so it must stay about a minute on
 * two cores. The end-to-end suites below start a real process for nearly every test (the CLI, the
 * scripted ACP agent, a `/bin/sh` per generated case), which costs 0.3–0.5 s of CPU each; together
 * they took three of the four minutes of the old single suite. They run in their own command.
 */
export const endToEndSuites = [
  // The CLI as users run it: `bin/patchwork.js` spawned per test, mostly with a scripted agent.
  "packages/cli/test/agent-cli.test.ts",
  "packages/cli/test/budget.test.ts",
  "packages/cli/test/cache-cli.test.ts",
  "packages/cli/test/code-cache.test.ts",
  "packages/cli/test/compile-cache.test.ts",
  "packages/cli/test/cancelled-write.test.ts",
  "packages/cli/test/acp-cli.test.ts",
  "packages/cli/test/entry-results.test.ts",
  "packages/cli/test/examples.test.ts",
  "packages/cli/test/historian.test.ts",
  "packages/cli/test/plugin-cli.test.ts",
  "packages/cli/test/replay.test.ts",
  "packages/cli/test/resume.test.ts",
  "packages/cli/test/resume-batches.test.ts",
  "packages/cli/test/settle.test.ts",
  "packages/cli/test/retries-cli.test.ts",
  "packages/cli/test/run.test.ts",
  "packages/cli/test/signals.test.ts",
  "packages/cli/test/spinner.test.ts",
  "packages/cli/test/trace.test.ts",
  "packages/cli/test/usage.test.ts",
  "packages/cli/test/vm-limits.test.ts",
  "packages/cli/test/workers.test.ts",
  // The agent runtime against scripted ACP agent processes.
  "packages/agent/test/answers.test.ts",
  "packages/agent/test/cancel.test.ts",
  "packages/agent/test/faults.test.ts",
  "packages/agent/test/flows.test.ts",
  "packages/agent/test/interpreter.test.ts",
  "packages/agent/test/process-lines.test.ts",
  "packages/serve/test/proxy.test.ts",
  "packages/serve/test/proxy-commands.test.ts",
  "packages/serve/test/proxy-ahead.test.ts",
  "packages/serve/test/proxy-progress.test.ts",
  "packages/serve/test/mcp.test.ts",
  "packages/serve/test/mcp-sampling.test.ts",
  // Hostile and buggy clients of the servers (`mcp`, `acp`, `lsp` processes): docs/security.md, "Servers".
  "packages/serve/test/hostile-mcp.test.ts",
  "packages/serve/test/hostile-acp.test.ts",
  "packages/serve/test/hostile-http.test.ts",
  "packages/language-server/test/hostile-lsp.test.ts",
  "packages/agent/test/recycling.test.ts",
  "packages/agent/test/spare-session.test.ts",
  "packages/agent/test/shared-do-order.test.ts",
  "packages/agent/test/workers.test.ts",
  "packages/agent/test/suspended-workers.test.ts",
  "packages/agent/test/suspended-thinks.test.ts",
  "packages/agent/test/write-lock.test.ts",
  // Hostile values through a real /bin/sh, one process per generated case.
  "packages/interpreter/test/shell-quoting.property.test.ts",
];

/** The suites with configs and commands of their own (see each vitest.*.config.ts). */
export const ownCommandSuites = ["test/agents/**", "test/package/**", "test/browser/**", "test/acpx/**", "test/mcp-inspector/**", "test/editor/**", "test/fleet/**"];

export const allTests = ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"];

/** How both suites run: the property-test settings, a fresh CLI bundle, two files at a time
 * (two cores on every machine and in CI: process-heavy files must not starve each other). */
export const runnerOptions = {
  setupFiles: ["test/setup/property.ts"],
  globalSetup: ["test/setup/bundle.ts"],
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
  maxWorkers: 2,
  /** The usual output, then the skipped tests by name (each title says why it is skipped). */
  reporters: ["default", "./test/setup/skipped-reporter.ts"],
};
