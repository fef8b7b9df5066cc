import { defineConfig } from "vitest/config";

/**
 * End-to-end tests of `patchwork mcp` with the MCP Inspector's CLI, an MCP client from npm
 * (npm run test:inspector; installed with its own Node 22 into test/mcp-inspector/node_modules by
 * npm ci --prefix test/mcp-inspector). Slow: every Inspector command starts two processes.
 */
export default defineConfig({
  test: {
    include: ["test/mcp-inspector/**/*.test.ts"],
    exclude: ["test/mcp-inspector/node_modules/**"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
