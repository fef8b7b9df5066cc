import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { UsageError } from "./files.js";

/** `--agent claude|codex|gemini`: the usual command lines of the well-known ACP agents. */
const PRESETS: Record<string, { candidates: string[]; args: string[]; install: string }> = {
  claude: {
    candidates: ["claude-agent-acp", "claude-code-acp"],
    args: [],
    install: "npm install -g @agentclientprotocol/claude-agent-acp",
  },
  codex: { candidates: ["codex-acp"], args: [], install: "npm install -g @agentclientprotocol/codex-acp" },
  gemini: { candidates: ["gemini"], args: ["--experimental-acp"], install: "npm install -g @google/gemini-cli" },
};

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Turns the `--agent` value into a command line: a preset name expands to the first of its
 * commands found on PATH; anything else is a shell command line used as is.
 */
export function resolveAgentCommand(value: string, env: NodeJS.ProcessEnv = process.env): string {
  const preset = PRESETS[value];
  if (!preset) return value;
  for (const candidate of preset.candidates) {
    if (onPath(candidate, env)) return [candidate, ...preset.args].join(" ");
  }
  throw new UsageError(
    `--agent ${value}: ${preset.candidates.map((c) => `'${c}'`).join(" or ")} not found on PATH (install it with: ${preset.install})`,
  );
}

export const presetNames = Object.keys(PRESETS);
