import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const repoRoot = join(import.meta.dirname, "..", "..", "..");
export const patchworkBin = join(repoRoot, "packages", "cli", "bin", "patchwork.js");

export interface CliResult {
  status: number | null;
  stdout: string;
  /** stderr without the summary line a run with an agent ends with (`summary`). */
  stderr: string;
  /** The run's summary (`N thinks asked, … · tokens … · cost … · T s`, docs/cli.md "What a run cost"), if it printed one. */
  summary?: string;
}

/** The summary line every run with an agent that thought ends its stderr with (agent-run.ts). */
const SUMMARY = /^patchwork: (\d+ thinks? asked, \d+ replayed, \d+ retried, \d+ failed · [^\n]*)\n$/m;

/** stderr and the run's summary apart (the summary is the last line). */
export function splitSummary(stderr: string): { stderr: string; summary?: string } {
  const m = SUMMARY.exec(stderr);
  if (!m || m.index + m[0].length !== stderr.length) return { stderr };
  return { stderr: stderr.slice(0, m.index), summary: m[1] };
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
  return { status: result.status, stdout: result.stdout, ...splitSummary(result.stderr ?? "") };
}

/** A fresh temporary directory with the given files. */
export function tempFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "pw-cli-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
