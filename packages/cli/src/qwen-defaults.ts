/**
 * Qwen Code's settings for `--agent qwen`: a system-defaults file (the lowest settings scope,
 * which Qwen Code takes from `QWEN_CODE_SYSTEM_DEFAULTS_PATH`) holding the user's own system
 * defaults plus
 * - `tools.visible: ["mcp__patchwork__do"]`, so that our `do` tool is offered to the model
 *   directly instead of behind Qwen Code's `tool_search` bridge (docs/agents.md); merged by
 *   union with the user's and the project's settings;
 * - unless the user's defaults say otherwise, no follow-up suggestion and no background memory
 *   extraction after each turn (each one more model request, the latter writing a think's
 *   prompt into the user's memories); the user's and the project's settings still win.
 * The file is written to the temp folder, named by its content.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { platform, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";

export const QWEN_DO_TOOL = "mcp__patchwork__do";

/** Where Qwen Code reads its system defaults when the variable is not set (its `getSystemDefaultsPath`). */
function defaultSystemDefaultsPath(env: NodeJS.ProcessEnv): string {
  const settings =
    env.QWEN_CODE_SYSTEM_SETTINGS_PATH ??
    (platform() === "darwin" ? "/Library/Application Support/QwenCode/settings.json" : platform() === "win32" ? "C:\\ProgramData\\qwen-code\\settings.json" : "/etc/qwen-code/settings.json");
  return join(dirname(settings), "system-defaults.json");
}

function readJson(file: string): Record<string, unknown> {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {}; // absent or unreadable: Qwen Code ignores it too
  }
}

function object(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The system-defaults file for a Qwen Code run, written if needed; returns its path. */
export function qwenSystemDefaults(env: NodeJS.ProcessEnv = process.env): string {
  const own = readJson(env.QWEN_CODE_SYSTEM_DEFAULTS_PATH ?? defaultSystemDefaultsPath(env));
  const tools = object(own.tools);
  const visible = Array.isArray(tools.visible) ? tools.visible.filter((t): t is string => typeof t === "string") : [];
  const ui = object(own.ui);
  const memory = object(own.memory);
  const merged = {
    ...own,
    tools: { ...tools, visible: [...new Set([...visible, QWEN_DO_TOOL])] },
    ui: { enableFollowupSuggestions: false, ...ui },
    memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false, ...memory },
  };
  const text = `${JSON.stringify(merged, null, 2)}\n`;
  const dir = join(tmpdir(), `patchwork-${userInfo().uid}`);
  const file = join(dir, `qwen-system-defaults-${createHash("sha256").update(text).digest("hex").slice(0, 12)}.json`);
  if (readJson(file).tools === undefined) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, text);
    renameSync(partial, file);
  }
  return file;
}
