/**
 * A task's sources: its file and every file its imports load, each with its SHA-256, named
 * relative to the run's working directory. A job carries them; the machine that takes it checks
 * that its own copies are the same (every machine runs the same code: a program's shell
 * commands and files are its project's) and refuses the task if one differs or is missing.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { importedFiles, moduleDir } from "@patchwork/interpreter";
import { parse } from "@patchwork/parser";
import { FleetCodes, FleetError } from "./url.js";

export interface SourceFiles {
  /** Path (relative to the run's cwd, `/`-separated) → SHA-256 of the text. */
  hashes: Record<string, string>;
  /** One hash of them all (for messages and logs). */
  digest: string;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The sources of a task of `fileName` (absolute), read from this machine's files under `cwd`. */
export function sourcesOf(fileName: string, cwd: string): SourceFiles {
  const hashes: Record<string, string> = {};
  const seen = new Set<string>();
  const visit = (abs: string) => {
    if (seen.has(abs)) return;
    seen.add(abs);
    const text = readFileSync(abs, "utf8");
    hashes[relativeName(abs, cwd)] = sha256(text);
    if (abs.endsWith(".json")) return;
    const parsed = parse(text, { fileName: abs });
    for (const file of importedFiles(parsed.program, moduleDir(abs, cwd))) {
      try {
        visit(file);
      } catch {
        // An import that does not load fails the task itself, where it is written.
      }
    }
  };
  visit(fileName);
  const digest = sha256(JSON.stringify(Object.entries(hashes).sort(([a], [b]) => (a < b ? -1 : 1))));
  return { hashes, digest };
}

function relativeName(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return (rel.startsWith("..") || isAbsolute(rel) ? abs : rel).split(sep).join("/");
}

/** The file `name` (as `sourcesOf` gives it) under this machine's `cwd`. */
export function localPath(name: string, cwd: string): string {
  return isAbsolute(name) ? name : resolve(cwd, name);
}

/** This machine's files as last read: text and hash, kept while their size and mtime stay the same. */
const known = new Map<string, { size: number; mtimeMs: number; text: string; hash: string }>();

/** A file of this machine with its SHA-256 (read again only when it changed). */
export function localFile(path: string): { text: string; hash: string } {
  const stat = statSync(path);
  const seen = known.get(path);
  if (seen && seen.size === stat.size && seen.mtimeMs === stat.mtimeMs) return seen;
  const text = readFileSync(path, "utf8");
  const entry = { size: stat.size, mtimeMs: stat.mtimeMs, text, hash: sha256(text) };
  known.set(path, entry);
  return entry;
}

/** Throws PW4062 naming the first file of `expected` whose copy under `cwd` differs or is missing. */
export function checkSources(expected: SourceFiles, cwd: string, where: string): void {
  for (const [name, hash] of Object.entries(expected.hashes)) {
    let file: { text: string; hash: string };
    try {
      file = localFile(localPath(name, cwd));
    } catch {
      throw new FleetError(FleetCodes.sourcesDiffer, `${where} has no file ${name} under ${cwd}: it runs only tasks whose sources it has, the same`);
    }
    if (file.hash !== hash) {
      throw new FleetError(
        FleetCodes.sourcesDiffer,
        `${where} has another ${name} than the run's (sha256 ${file.hash.slice(0, 12)}…, the run's ${hash.slice(0, 12)}…): it runs only tasks whose sources are the same`,
      );
    }
  }
}
