/**
 * `patchwork plugin FILES… --out DIR`: a Claude Code plugin whose skills and commands are the
 * `@skill`s and `@command`s of Patchwork files, served by `patchwork mcp` on the plugin's own
 * copy of the files (docs/mcp.md, "Claude Code plugin"). DIR is both the plugin and a
 * marketplace of it, so `claude plugin marketplace add DIR` and `claude plugin install
 * NAME@patchwork-NAME` work, and so does loading DIR as a local plugin.
 */
import { basename, resolve } from "node:path";
import { kebabCase, pluginName } from "../names.js";
import { servedEntries } from "../served.js";
import { fileHeader } from "./header.js";
import { commandMd, marketplaceJson, marketplaceName, mcpJson, pluginJson, skillMd, type PluginMeta } from "./render.js";
import { checkOut, replaceOut, type PluginFile } from "./out-folder.js";
import { copyPath, loadSources, PluginError } from "./sources.js";

/** The longest `@command` name: a command is a file name and a `/name` to type (as tool names: 64). */
const COMMAND_NAME_MAX = 64;

export interface PluginOptions {
  /** The `.pw` files whose skills and commands the plugin offers (relative to `cwd`). */
  files: string[];
  /** The plugin's folder (created; a previous plugin there is replaced). */
  out: string;
  /** The agent that answers the skills' thinks: `--agent` of `patchwork mcp`, baked into .mcp.json. */
  agent?: string;
  /** The command line that starts Patchwork in .mcp.json (default `patchwork`). */
  command?: string[];
  /** More options of `patchwork mcp` for .mcp.json (`--no-agent`, `--timeout 60`…). */
  serveOptions?: string[];
  /** The plugin's name (default: the first file's `pluginName`). */
  name?: string;
  /** Default: process.cwd(). */
  cwd?: string;
}

export interface PluginResult {
  /** The plugin's folder, absolute. */
  dir: string;
  meta: PluginMeta;
  /** The marketplace name (`claude plugin install <name>@<marketplace>`). */
  marketplace: string;
  /** `plugin:skill` names, and the tool each calls. */
  skills: { name: string; tool: string }[];
  /** `plugin:command` names. */
  commands: string[];
  /** Every file written, relative to `dir`, sorted. */
  written: string[];
}

/** Names made unique in order: `a`, `a-2`, … */
function uniqueNames(): (name: string) => string {
  const taken = new Set<string>();
  return (name) => {
    let n = name;
    for (let i = 2; taken.has(n); i++) n = `${name}-${i}`;
    taken.add(n);
    return n;
  };
}

/** Refuses a `@command` name too long to be a command (and a file name). */
function checkCommandName(name: string, label: string): void {
  if (name.length > COMMAND_NAME_MAX)
    throw new PluginError(`${label}: @command ${name.slice(0, 20)}… (${name.length} characters): a command name has at most ${COMMAND_NAME_MAX} characters`, true);
}

/** Writes the plugin and says what it holds. Throws PluginError for a user error. */
export function writePlugin(options: PluginOptions): PluginResult {
  const cwd = options.cwd ?? process.cwd();
  const sources = loadSources(options.files, cwd);
  const served = servedEntries(sources.files);
  const first = sources.files[0]!;
  if (served.length === 0) {
    const shown = options.files.join(", ");
    throw new PluginError(`${shown}: no @skill or @command to offer (\`patchwork list FILE\` shows what a file declares)`);
  }
  const name = options.name !== undefined ? kebabCase(options.name) : pluginName(first.program, first.fileName);
  const header = fileHeader(first.text);
  const meta: PluginMeta = {
    name,
    version: header.version ?? "0.1.0",
    description: header.description ?? `${name} plugin`,
    author: header.author ?? "Patchwork Compiler",
  };
  const dir = resolve(cwd, options.out);
  checkOut(dir, options.out);
  const files = new Map<string, string>();
  files.set(".claude-plugin/plugin.json", pluginJson(meta));
  files.set(".claude-plugin/marketplace.json", marketplaceJson(meta));
  const copies = sources.files.map((f) => copyPath(sources, f.fileName));
  files.set(".mcp.json", mcpJson(options.command ?? ["patchwork"], copies, options.agent, options.serveOptions));
  const skillName = uniqueNames();
  const commandName = uniqueNames();
  const skills: PluginResult["skills"] = [];
  const commands: string[] = [];
  for (const s of served) {
    const label = basename(s.file.fileName);
    const skill = s.kind === "skill" ? skillName(kebabCase(s.tool)) : null;
    if (skill !== null) {
      files.set(`skills/${skill}/SKILL.md`, skillMd(s, meta, skill, label));
      skills.push({ name: `${name}:${skill}`, tool: s.tool });
    }
    for (const c of s.commands) {
      checkCommandName(c, label);
      const command = commandName(kebabCase(c));
      files.set(`commands/${command}.md`, commandMd(s, meta, skill, label));
      commands.push(`${name}:${command}`);
    }
  }
  const plugin: PluginFile[] = [...files].map(([path, bytes]) => ({ path, bytes }));
  for (const abs of sources.copies) plugin.push({ path: copyPath(sources, abs), ...sources.contents.get(abs)! });
  replaceOut(dir, options.out, plugin);
  const written = [...files.keys(), ...sources.copies.map((abs) => copyPath(sources, abs))].sort();
  return { dir, meta, marketplace: marketplaceName(name), skills, commands, written };
}
