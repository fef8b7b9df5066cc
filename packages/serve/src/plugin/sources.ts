/**
 * The files of a plugin: the `.pw` files it was asked for (a folder: its `.pw` files), parsed,
 * and every file they import (transitively), so that the plugin's own copy runs as the
 * originals do. Paths inside the plugin keep their layout relative to the files' common folder.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, relative, resolve, sep } from "node:path";
import { formatDiagnostic, hasErrors, parse, SourceFile } from "@patchwork/parser";
import { importedFiles, moduleDir } from "@patchwork/interpreter";
import { pwFiles } from "../mcp/catalog.js";
import type { ServedFile } from "../served.js";

/**
 * A user error of `patchwork plugin`: `usage` for a command line that names a missing file or
 * an unusable --out (exit 2), else a file that cannot be offered (a syntax error, no skill).
 */
export class PluginError extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

export interface PluginSources {
  /** The files asked for, parsed, in order (their entries are the plugin's skills and commands). */
  files: ServedFile[];
  /** Every file to copy (those asked for and all they import), absolute. */
  copies: string[];
  /** Each copy's bytes and mode, read before anything is written (an input may lie inside --out). */
  contents: Map<string, { bytes: Buffer; mode: number }>;
  /** The folder the copies' paths are relative to. */
  root: string;
}

function read(path: string, why: string): { bytes: Buffer; mode: number } {
  try {
    return { bytes: readFileSync(path), mode: statSync(path).mode & 0o777 };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new PluginError(`${why}: no such file`, true);
    throw new PluginError(`${why}: cannot read (${code ?? String(error)})`, true);
  }
}

function parsed(path: string, text: string, shown: string): ServedFile {
  const { program, diagnostics } = parse(text, { fileName: shown });
  if (hasErrors(diagnostics)) {
    const source = new SourceFile(text, shown);
    const errors = diagnostics.filter((d) => d.severity === "error").map((d) => formatDiagnostic(d, source));
    throw new PluginError(errors.join("\n"));
  }
  return { fileName: path, text, program };
}

/** The deepest folder holding every path. */
function commonFolder(paths: string[]): string {
  let root = dirname(paths[0]!);
  for (const p of paths) while (relative(root, p).startsWith("..")) root = dirname(root);
  return root;
}

/** Reads and parses `files` (relative to `cwd`) and finds every file they import. */
export function loadSources(files: string[], cwd: string): PluginSources {
  if (files.length === 0) throw new PluginError("give the .pw files whose skills and commands the plugin offers", true);
  const asked: ServedFile[] = [];
  const seen = new Set<string>();
  const copies: string[] = [];
  const contents = new Map<string, { bytes: Buffer; mode: number }>();
  const visit = (abs: string, shown: string, from?: string): ServedFile => {
    if (extname(abs) !== ".pw") throw new PluginError(`${shown}: a plugin serves .pw files (Patchwork programs)`, true);
    const content = read(abs, from ? `${from} imports ${shown}` : shown);
    contents.set(abs, content);
    const file = parsed(abs, content.bytes.toString("utf8"), shown);
    seen.add(abs);
    copies.push(abs);
    for (const dep of importedFiles(file.program, moduleDir(abs, cwd))) {
      if (!seen.has(dep)) visit(dep, relative(cwd, dep) || dep, shown);
    }
    return file;
  };
  for (const f of expandFolders(files, cwd)) {
    const abs = resolve(cwd, f);
    if (seen.has(abs)) {
      if (!asked.some((a) => a.fileName === abs)) asked.push(parsed(abs, contents.get(abs)!.bytes.toString("utf8"), f));
      continue;
    }
    asked.push(visit(abs, f));
  }
  return { files: asked, copies, contents, root: commonFolder(copies) };
}

/** The paths with each folder replaced by its `.pw` files (as `patchwork mcp` reads a folder), relative to `cwd`. */
function expandFolders(paths: string[], cwd: string): string[] {
  return paths.flatMap((p) => {
    const abs = resolve(cwd, p);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) return [p];
    const found = pwFiles([abs], cwd).map((f) => relative(cwd, f));
    if (found.length === 0) throw new PluginError(`${p}: a folder without .pw files`, true);
    return found;
  });
}

/** A copy's path inside the plugin's `pw/` folder, with `/` separators. */
export function copyPath(sources: PluginSources, abs: string): string {
  return ["pw", ...relative(sources.root, abs).split(sep)].join("/");
}
