import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const repoRoot = join(import.meta.dirname, "..", "..", "..");
export const patchworkBin = join(repoRoot, "packages", "cli", "bin", "patchwork.js");

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `patchwork` binary in a child process. */
export function patchwork(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): CliResult {
  const env: Record<string, string | undefined> = { ...process.env, PATCHWORK_AGENT: undefined, ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const result = spawnSync(process.execPath, [patchworkBin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: env as NodeJS.ProcessEnv,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: options.timeoutMs ?? 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temporary directory with the given files. */
export function tempFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "pw-cli-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
