import { accessSync, constants, readFileSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { UsageError } from "./files.js";
import { qwenSystemDefaults } from "./qwen-defaults.js";

interface Preset {
  candidates: string[];
  args: string[];
  install: string;
  /** Arguments that depend on the installed version (given the command's file on PATH). */
  argsFor?: (file: string) => string[];
  /** Environment variables the agent is started with (`env NAME=value command …`). */
  envFor?: (env: NodeJS.ProcessEnv) => Record<string, string>;
}

/** `--agent claude|codex|gemini|opencode|qwen|copilot`: the usual command lines of the well-known ACP agents. */
const PRESETS: Record<string, Preset> = {
  claude: {
    candidates: ["claude-agent-acp", "claude-code-acp"],
    args: [],
    install: "npm install -g @agentclientprotocol/claude-agent-acp",
  },
  codex: { candidates: ["codex-acp"], args: [], install: "npm install -g @agentclientprotocol/codex-acp" },
  gemini: { candidates: ["gemini"], args: [], argsFor: geminiArgs, install: "npm install -g @google/gemini-cli" },
  // Without `acp` OpenCode starts its terminal UI and never answers `initialize`.
  opencode: { candidates: ["opencode"], args: ["acp"], install: "npm install -g opencode-ai" },
  // Its settings offer our `do` tool to the model directly (qwen-defaults.ts).
  qwen: {
    candidates: ["qwen"],
    args: ["--acp"],
    envFor: (env) => ({ QWEN_CODE_SYSTEM_DEFAULTS_PATH: qwenSystemDefaults(env) }),
    install: "npm install -g @qwen-code/qwen-code",
  },
  // `--allow-tool=patchwork`: Copilot CLI runs the tools of our MCP server (named `patchwork`,
  // a name its model cannot change) without asking; its permission requests name a tool only
  // by titles, so Patchwork could not tell ours from another (docs/agents.md). Every other
  // tool still asks, and Patchwork's policy answers.
  copilot: { candidates: ["copilot"], args: ["--acp", "--allow-tool=patchwork"], install: "npm install -g @github/copilot" },
};

/**
 * Gemini CLI: `--acp --skip-trust` (it ignores the MCP servers a client gives it in an
 * untrusted folder; `--skip-trust` trusts the working directory for this process only).
 * Before 0.33 the flag was `--experimental-acp`, and 0.37–0.40 reject `--skip-trust` as an
 * unknown argument: the version is read from the package.json next to the installed script
 * (no process started). An unknown version gets the current flags.
 */
export function geminiArgs(file: string): string[] {
  const version = packageVersion(file);
  if (!version) return ["--acp", "--skip-trust"];
  if (compareVersions(version, "0.33.0") < 0) return ["--experimental-acp"];
  if (compareVersions(version, "0.37.0") >= 0 && compareVersions(version, "0.41.0") < 0) return ["--acp"];
  return ["--acp", "--skip-trust"];
}

/** The `version` of the package whose bin `file` is (a symlink into node_modules, usually). */
function packageVersion(file: string): string | undefined {
  try {
    let dir = dirname(realpathSync(file));
    for (let i = 0; i < 3; i++, dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
        if (pkg.name === "@google/gemini-cli" && typeof pkg.version === "string") return pkg.version;
      } catch {
        // no package.json here: look one level up
      }
    }
  } catch {
    // not resolvable
  }
  return undefined;
}

function compareVersions(a: string, b: string): number {
  const parse = (v: string) => v.split(/[.-]/).slice(0, 3).map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

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
  if (!preset) return withPresetEnv(value, env);
  for (const candidate of preset.candidates) {
    const file = onPath(candidate, env);
    if (!file) continue;
    const vars = Object.entries(preset.envFor?.(env) ?? {}).map(([name, value]) => `${name}=${shellQuote(value)}`);
    return [...(vars.length > 0 ? ["env", ...vars] : []), candidate, ...preset.args, ...(preset.argsFor?.(file) ?? [])].join(" ");
  }
  throw new UsageError(
    `--agent ${value}: ${preset.candidates.map((c) => `'${c}'`).join(" or ")} not found on PATH (install it with: ${preset.install})`,
  );
}

export const presetNames = Object.keys(PRESETS);

/**
 * A hand-written command line that starts a preset's program (`qwen --acp`, `/opt/bin/qwen
 * --acp -m x`) gets the preset's environment too, unless it sets those variables itself: without
 * Qwen Code's system defaults its model never sees `do`.
 */
function withPresetEnv(command: string, env: NodeJS.ProcessEnv): string {
  const program = /^\s*(\S+)/.exec(command)?.[1];
  if (program === undefined) return command;
  const name = program.slice(program.lastIndexOf("/") + 1);
  const preset = Object.values(PRESETS).find((p) => p.envFor && p.candidates.includes(name));
  const vars = Object.entries(preset?.envFor?.(env) ?? {}).filter(([variable]) => !command.includes(variable));
  if (vars.length === 0) return command;
  return `env ${vars.map(([variable, value]) => `${variable}=${shellQuote(value)}`).join(" ")} ${command.trimStart()}`;
}

/** `value` as one word of a POSIX shell command line. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
