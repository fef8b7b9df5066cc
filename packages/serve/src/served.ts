/**
 * What a set of files serves to other tools: each `@skill` and `@command` entry (and each
 * `skill` item) of each file, in file order and source order, with the MCP tool name it is
 * offered under (`toolNames`: plain, or prefixed with the file's plugin name where two files
 * clash) and the `@command` names that invoke it. The MCP server of `patchwork mcp` and the
 * plugin writer of `patchwork plugin` both list tools from here, so that a plugin's files name
 * exactly the tools its server offers.
 */
import { listEntries, type EntryInfo } from "@patchwork/interpreter";
import type { Program } from "@patchwork/parser";
import { pluginName, toolNames } from "./names.js";

/** One file as it was read and parsed. */
export interface ServedFile {
  /** The file's path (as given, or absolute). */
  fileName: string;
  /** Its text (doc comments are read from it). */
  text: string;
  program: Program;
}

export interface ServedEntry {
  /** The file that declares it. */
  file: ServedFile;
  /** The plugin name of that file (`pluginName`). */
  plugin: string;
  entry: EntryInfo;
  /** The MCP tool name it is offered under (matches `TOOL_NAME`). */
  tool: string;
  /** `skill` (a `@skill` or a `skill` item) or `command` (a `@command` only). */
  kind: "skill" | "command";
  /** The names of the `@command` annotations on it (a `@skill` + `@command` pair, or the command itself). */
  commands: string[];
}

/** The entries a file offers as tools: its skills and commands. */
function offered(file: ServedFile): { entry: EntryInfo; kind: "skill" | "command"; commands: string[] }[] {
  return listEntries(file.program, file.text)
    .filter((e) => e.kind === "skill" || e.kind === "command")
    .map((entry) => ({
      entry,
      kind: entry.kind as "skill" | "command",
      commands: entry.decl.annotations.filter((a) => a.name === "command").map((a) => a.arg ?? entry.decl.name),
    }));
}

/** Every skill and command of `files`, in order, with its tool name. */
export function servedEntries(files: ServedFile[]): ServedEntry[] {
  const list = files.flatMap((file) => {
    const plugin = pluginName(file.program, file.fileName);
    return offered(file).map((o) => ({ file, plugin, ...o }));
  });
  const names = toolNames(list.map((s) => ({ plugin: s.plugin, entry: s.entry.name })));
  return list.map((s, i) => ({ ...s, tool: names[i]! }));
}

/** A doc comment split into its text and the `@param name text` lines it holds. */
export interface EntryDoc {
  /** The doc comment without its `@param` lines, trimmed; "" when there is none. */
  text: string;
  /** What each documented parameter means. */
  params: Record<string, string>;
}

/** Splits an entry's doc comment into its text and its `@param NAME text` lines. */
export function entryDoc(doc: string | null): EntryDoc {
  const params: Record<string, string> = {};
  const lines: string[] = [];
  for (const line of (doc ?? "").split("\n")) {
    const m = /^\s*@param\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-:]\s*)?(.*)$/.exec(line);
    if (m) params[m[1]!] = m[2]!.trim();
    else lines.push(line);
  }
  return { text: lines.join("\n").trim(), params };
}
