import { defineConfig } from "vitest/config";

/** The real-editor suite (npm run test:editor): headless Neovim driving `patchwork lsp`. */
export default defineConfig({
  test: {
    include: ["test/editor/**/*.test.ts"],
    testTimeout: 180_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
