/**
 * The tools of `patchwork mcp FILES…`: every `@skill` and `@command` of the given `.pw` files
 * (a folder: the `.pw` files in it), read afresh whenever the catalog is rebuilt. A tool knows
 * its file and entry, its MCP name (`toolNames`: the entry's name, the plugin name in front
 * where two files clash), its description (the doc comment above the entry) and its schemas.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import type { ParsedModules, ParsedProgram } from "@patchwork/agent";
import { importedFiles, listEntries, moduleDir, type EntryInfo } from "@patchwork/interpreter";
import { parse, SourceFile, type Diagnostic, type Program } from "@patchwork/parser";
import { diagnosticsText } from "../diagnostics.js";
import { pluginName, toolNames } from "../names.js";
import { inputSchema, outputSchema, typeLookup, type JsonSchema } from "./schema.js";

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** With `wrapped`, structuredContent is `{value}`; else the value itself (an object). */
  output: { schema: JsonSchema; wrapped: boolean } | null;
  /** The file (absolute) and its source as read when the catalog was built. */
  file: string;
  source: string;
  /** The file parsed, with every file its imports load: a call's threads parse nothing. */
  parsed: ParsedProgram;
  /** The entry to run: its skill/command name. */
  entry: string;
  params: string[];
  signature: string;
}

export interface Catalog {
  tools: McpTool[];
  /** Files that could not be read or parsed, as positioned messages (their tools are left out). */
  problems: string[];
  /** The files read (absolute). */
  files: string[];
}

/** The `.pw` files of the paths: a file as given, a folder's `.pw` files (not its subfolders), sorted. */
export function pwFiles(paths: string[], cwd: string): string[] {
  const files: string[] = [];
  for (const p of paths) {
    const full = resolve(cwd, p);
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) if (extname(name) === ".pw" && statSync(join(full, name)).isFile()) files.push(join(full, name));
    } else files.push(full);
  }
  return [...new Set(files)];
}

export function buildCatalog(paths: string[], cwd: string): Catalog {
  const problems: string[] = [];
  const found: { plugin: string; entry: EntryInfo; file: string; source: string; parsed: ParsedProgram; types: ReturnType<typeof typeLookup> }[] = [];
  const files = pwFiles(paths, cwd);
  for (const file of files) {
    let source: string;
    try {
      source = readFileSync(file, "utf8");
    } catch (error) {
      problems.push(`${file}: ${(error as Error).message}`);
      continue;
    }
    const { program, diagnostics } = parse(source, { fileName: file });
    const errors = diagnostics.filter((d: Diagnostic) => d.severity === "error");
    if (errors.length > 0 || !program) {
      problems.push(diagnosticsText(errors, new SourceFile(source, file)));
      continue;
    }
    const types = typeLookup(program);
    const plugin = pluginName(program, file);
    const parsed: ParsedProgram = { program, diagnostics, modules: importsOf(program, file, cwd) };
    for (const entry of listEntries(program, source)) {
      if (entry.kind === "skill" || entry.kind === "command") found.push({ plugin, entry, file, source, parsed, types });
    }
  }
  const names = toolNames(found.map((f) => ({ plugin: f.plugin, entry: f.entry.name })));
  const tools = found.map((f, i): McpTool => ({
    name: names[i]!,
    description: f.entry.doc ?? `${f.entry.kind} ${f.entry.signature} of ${f.plugin}`,
    inputSchema: inputSchema(f.entry, f.types),
    output: outputSchema(f.entry, f.types),
    file: f.file,
    source: f.source,
    parsed: f.parsed,
    entry: f.entry.name,
    params: f.entry.decl.params.map((p) => p.name),
    signature: f.entry.signature,
  }));
  return { tools, problems, files };
}

/** Every file the program's imports load, parsed (a file that cannot be read is left to the run to report). */
function importsOf(program: Program, file: string, cwd: string): ParsedModules {
  const modules: ParsedModules = {};
  const queue = importedFiles(program, moduleDir(file, cwd));
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (Object.hasOwn(modules, path)) continue;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    const parsed = parse(text, { fileName: path });
    if (!parsed.program) continue;
    modules[path] = { text, program: parsed.program, diagnostics: parsed.diagnostics };
    queue.push(...importedFiles(parsed.program, moduleDir(path, cwd)));
  }
  return modules;
}
