// Vitest global setup: the CLI's tests run the real `patchwork` binary, which runs the bundle
// (packages/cli/bundle, scripts/bundle-cli.mjs). `npm run build` makes it; after a bare
// `npx tsc -b` it would be stale, so it is refreshed here (a no-op when up to date).
// The binary's parse cache (docs/cli.md) goes to a temporary directory of the test run, not
// to the user's ~/.cache (the test processes and the binaries they spawn inherit it).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  execFileSync(process.execPath, [join(import.meta.dirname, "..", "..", "scripts", "bundle-cli.mjs")], { stdio: "inherit" });
  const cache = mkdtempSync(join(tmpdir(), "pw-test-cache-"));
  process.env.PATCHWORK_CACHE_DIR = cache;
  return () => rmSync(cache, { recursive: true, force: true });
}
