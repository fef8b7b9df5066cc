// A fresh `npm install` is quiet (issue 23): no peer-dependency conflict (esbuild is in the
// range vite accepts) and every install script is reviewed in package.json's `allowScripts`
// (esbuild's postinstall is denied: its platform binary comes as an optional dependency; so is
// msgpackr-extract's, which bullmq's msgpackr only tries, falling back to JavaScript: the fleet
// suite passes on an install made with --ignore-scripts).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function npmRun(args: string[]) {
  const r = spawnSync(npm, args, { cwd: root, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("npm install in the repository", () => {
  it("resolves the lock file's tree with no warning", () => {
    const r = npmRun(["install", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"]);
    expect(r.output).not.toMatch(/npm warn/i);
    expect(r.status).toBe(0);
  });

  it("leaves no install script unreviewed", () => {
    const r = npmRun(["install-scripts", "ls"]);
    expect(r.output).toContain("No packages with unreviewed install scripts.");
    expect(r.status).toBe(0);
  });
});
