/**
 * The tools of `patchwork mcp FILES…`: every `@skill` and `@command` of the given `.pw` files
 * (a folder: the `.pw` files in it), read afresh whenever the catalog is rebuilt. A tool knows
 * its file and entry, its MCP name (`servedEntries`: the entry's name, the plugin name in front
 * where two files clash; the plugins of `patchwork plugin` name the same), its description (the
 * doc comment above the entry, whose `@param NAME text` lines describe the parameters instead)
 * and its schemas.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import type { ParsedModules, ParsedProgram } from "@patchwork/agent";
import { importedFiles, moduleDir } from "@patchwork/interpreter";
import { parse, SourceFile, type Diagnostic, type Program } from "@patchwork/parser";
import { diagnosticsText } from "../diagnostics.js";
import { entryDoc, servedEntries, type ServedFile } from "../served.js";
import { inputSchema, outputSchema, typeLookup, type JsonSchema } from "./schema.js";
import { entryMayThink } from "./thinks.js";

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** With `wrapped`, structuredContent is `{value}`; else the value itself (an object). */
  output: { schema: JsonSchema; wrapped: boolean } | null;
  /** The entry may think (thinks.ts): without an agent its value may hold a prompt. */
  thinks: boolean;
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
  const served: ServedFile[] = [];
  const parsedOf = new Map<ServedFile, ParsedProgram>();
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
    const entry: ServedFile = { fileName: file, text: source, program };
    served.push(entry);
    parsedOf.set(entry, { program, diagnostics, modules: importsOf(program, file, cwd) });
  }
  // servedEntries names the tools, for this server and for the plugins of `patchwork plugin` alike.
  const tools = servedEntries(served).map((s): McpTool => {
    const types = typeLookup(s.file.program);
    const doc = entryDoc(s.entry.doc);
    return {
      name: s.tool,
      description: doc.text !== "" ? doc.text : `${s.entry.kind} ${s.entry.signature} of ${s.plugin}`,
      inputSchema: inputSchema(s.entry, types, doc.params),
      output: outputSchema(s.entry, types),
      thinks: entryMayThink(s.entry.decl, s.file.program, Object.values(parsedOf.get(s.file)!.modules).map((m) => m.program)),
      file: s.file.fileName,
      source: s.file.text,
      parsed: parsedOf.get(s.file)!,
      entry: s.entry.name,
      params: s.entry.decl.params.map((p) => p.name),
      signature: s.entry.signature,
    };
  });
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

