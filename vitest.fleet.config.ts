import { defineConfig } from "vitest/config";

/**
 * The fleet suite (npm run test:fleet): `patchwork run --queue` and `patchwork worker` processes
 * through a real Redis (Debian's redis-server, started by each file on a free port of 127.0.0.1
 * with a data directory of its own) with the scripted ACP agent. One file at a time.
 */
export default defineConfig({
  test: {
    include: ["test/fleet/**/*.test.ts"],
    globalSetup: ["test/setup/bundle.ts"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
