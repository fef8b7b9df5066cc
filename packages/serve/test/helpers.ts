// Shared helpers for the serve tests: scripted ACP agents in temp files (the agent package's
// `patchwork-test-agent`), process checks.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const agentBin = fileURLToPath(new URL("../../agent/bin/patchwork-test-agent.js", import.meta.url));
export const scratch = mkdtempSync(join(tmpdir(), "pw-serve-test-"));

let scripts = 0;

/** Writes a test agent script and returns the agent command line. */
export function scriptedAgent(script: object): string {
  const file = join(scratch, `script-${++scripts}.json`);
  writeFileSync(file, JSON.stringify(script));
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(agentBin)} ${JSON.stringify(file)}`;
}

/** Living (non-zombie) processes with their parent and group, from /proc. */
export function livingProcesses(): { pid: number; ppid: number; pgid: number }[] {
  const out: { pid: number; ppid: number; pgid: number }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || fields[0] === "X") continue;
      out.push({ pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]) });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** True while any living process of the group led by `pid` exists (zombies do not count). */
export function groupAlive(pid: number): boolean {
  return livingProcesses().some((p) => p.pgid === pid);
}
