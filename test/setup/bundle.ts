// Vitest global setup: the CLI's tests run the real `patchwork` binary, which runs the bundle
// (packages/cli/bundle, scripts/bundle-cli.mjs). `npm run build` makes it; after a bare
// `npx tsc -b` it would be stale, so it is refreshed here (a no-op when up to date).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function setup(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, "..", "..", "scripts", "bundle-cli.mjs")], { stdio: "inherit" });
}
