/**
 * Imported modules as the analysis sees them: their exported names and where each is
 * declared. Files are read through a `ModuleSource` (the disk, or the editor's open
 * documents first) and analysed once per text: an unchanged imported file costs a lookup.
 */
import { readFileSync } from "node:fs";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import { parse } from "@patchwork/parser";
import { unitFacts, type Decl } from "./facts.js";

export interface ModuleInfo {
  /** Absolute path of the module file. */
  path: string;
  text: string;
  /** Names an importer sees (exported items, or every function and trait when none is marked). */
  exports: ReadonlyMap<string, Decl>;
  /** Every top-level declaration of the module. */
  decls: readonly Decl[];
}

export interface ImportResolver {
  /** The module `source` (as written in the import) names, relative to the importing file. */
  module(source: string, fromFile: string): ModuleInfo | { error: string };
}

/** Reads module files: `read` returns the text or throws (its message is shown). */
export type ModuleSource = (path: string) => string;

/** The file an import names, as the interpreter resolves it (modules.ts). */
export function modulePath(source: string, fromFile: string): string {
  let abs = isAbsolute(source) ? source : resolve(dirname(resolve(fromFile)), source);
  if (extname(abs) === "") abs += ".pw";
  return abs;
}

export function readFromDisk(path: string): string {
  return readFileSync(path, "utf8");
}

/**
 * The names a module shows its importers, from its declarations (as the interpreter's
 * modules.ts: the exported items, or every function and trait when none is marked; `default`
 * for the default export).
 */
export function exportsOf(decls: Iterable<Decl>): Map<string, Decl> {
  const items: Decl[] = [];
  for (const d of decls) if (d.topLevel && (d.kind === "fun" || d.kind === "worker" || d.kind === "skill" || d.kind === "task" || d.kind === "trait")) items.push(d);
  const marked = items.filter((d) => d.exported || d.isDefault);
  const exports = new Map<string, Decl>();
  for (const d of marked.length > 0 ? marked : items) if (!exports.has(d.name)) exports.set(d.name, d);
  const def = items.find((d) => d.isDefault);
  if (def) exports.set("default", def);
  return exports;
}

function moduleInfo(path: string, text: string): ModuleInfo {
  const { program } = parse(text, { fileName: path });
  const facts = unitFacts(program.body, text);
  return { path, text, exports: exportsOf(facts.decls), decls: facts.decls.filter((d) => d.topLevel) };
}

/** A resolver with a cache keyed by path and text: each version of a file is analysed once. */
export class CachingResolver implements ImportResolver {
  private readonly cache = new Map<string, ModuleInfo>();
  /** How many files were analysed (for tests: an unchanged file is not analysed again). */
  analysed = 0;

  constructor(private readonly source: ModuleSource = readFromDisk) {}

  module(source: string, fromFile: string): ModuleInfo | { error: string } {
    const path = modulePath(source, fromFile);
    let text: string;
    try {
      text = this.source(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return { error: code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : e instanceof Error ? e.message : String(e) };
    }
    const cached = this.cache.get(path);
    if (cached && cached.text === text) return cached;
    this.analysed++;
    const info = moduleInfo(path, text);
    this.cache.set(path, info);
    return info;
  }
}
