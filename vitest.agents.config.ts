import { defineConfig } from "vitest/config";

/**
 * The real-agent suite (npm run test:agents): Claude Code's, Codex's and Gemini CLI's real ACP
 * adapters, OpenCode, Copilot CLI and Qwen Code, installed from npm into test/agents/node_modules
 * (npm ci --prefix test/agents),
 * each talking to a fake model API on 127.0.0.1. One file at a time: each agent is heavy.
 */
export default defineConfig({
  test: {
    include: ["test/agents/**/*.test.ts"],
    exclude: ["test/agents/node_modules/**"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
