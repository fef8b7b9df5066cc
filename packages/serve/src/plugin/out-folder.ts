/**
 * The plugin's folder (--out) replaced without ever losing a file: the new plugin is written
 * complete into a temporary folder beside --out, and only then are the generated entries of a
 * previous plugin moved aside and the new ones moved in (renames on one file system). Every
 * input was read before (sources.ts), so an input inside --out (a plugin regenerated from its own
 * edited copy) is carried over as read. A failure before the swap leaves --out as it was.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { PluginError } from "./sources.js";

/** The top-level entries a plugin consists of: those replaced when it is written again. */
const GENERATED = [".claude-plugin", "skills", "commands", "pw", ".mcp.json"];

/** A file or folder name's limit on common file systems (ext4, APFS, NTFS: 255). */
const NAME_MAX_BYTES = 255;

export interface PluginFile {
  /** Path inside the plugin, `/`-separated. */
  path: string;
  bytes: string | Buffer;
  mode?: number;
}

function fsCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/** Refuses an --out that is a file, lies inside a file, or is a folder that is neither empty nor a plugin. */
export function checkOut(dir: string, shown: string): void {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(d)) {
      if (!statSync(d).isDirectory()) {
        const what = d === dir ? "a file" : `${shownParent(shown, dir, d)} is a file`;
        throw new PluginError(`${shown}: ${what}, not a folder: give --out a new or empty folder`, true);
      }
      break;
    }
    if (dirname(d) === d) break;
  }
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, ".claude-plugin", "plugin.json")))
    throw new PluginError(`${shown}: not empty and not a plugin: give --out a new or empty folder`, true);
}

/** The ancestor `d` of --out as the user wrote --out (`taken.txt` of `taken.txt/p`). */
function shownParent(shown: string, dir: string, d: string): string {
  const below = relative(d, dir).split(sep).length;
  const parts = shown.split(/[\\/]+/);
  return parts.length > below ? parts.slice(0, parts.length - below).join("/") : d;
}

/** Refuses a path with a name longer than file systems allow, before anything is written. */
export function checkNames(files: PluginFile[]): void {
  for (const f of files)
    for (const part of f.path.split("/"))
      if (Buffer.byteLength(part) > NAME_MAX_BYTES) throw new PluginError(`${f.path.slice(0, 60)}…: a file name longer than ${NAME_MAX_BYTES} bytes`, true);
}

/** Writes `files` as the plugin at `dir` (see the file comment). */
export function replaceOut(dir: string, shown: string, files: PluginFile[]): void {
  checkOut(dir, shown);
  checkNames(files);
  const parent = dirname(dir);
  try {
    mkdirSync(parent, { recursive: true });
  } catch (error) {
    throw new PluginError(`${shown}: cannot create its folder (${fsCode(error)})`, true);
  }
  const fresh = temporary(parent, dir, shown, "new");
  try {
    for (const f of files) {
      const target = join(fresh, ...f.path.split("/"));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, f.bytes, f.mode !== undefined ? { mode: f.mode } : undefined);
    }
  } catch (error) {
    rmSync(fresh, { recursive: true, force: true });
    throw new PluginError(`${shown}: cannot write the plugin (${fsCode(error)}); --out is unchanged`, true);
  }
  if (!existsSync(dir)) {
    renameSync(fresh, dir);
    return;
  }
  const old = temporary(parent, dir, shown, "old");
  try {
    for (const name of GENERATED) if (existsSync(join(dir, name))) renameSync(join(dir, name), join(old, name));
    for (const name of readdirSync(fresh)) renameSync(join(fresh, name), join(dir, name));
  } catch (error) {
    throw new PluginError(`${shown}: cannot replace the plugin (${fsCode(error)}); the previous one is in ${old}, the new one in ${fresh}`);
  }
  rmSync(old, { recursive: true, force: true });
  rmSync(fresh, { recursive: true, force: true });
}

function temporary(parent: string, dir: string, shown: string, kind: string): string {
  try {
    return mkdtempSync(join(parent, `.${basename(dir).slice(0, 100)}.${kind}-`));
  } catch (error) {
    throw new PluginError(`${shown}: cannot create a temporary folder beside it (${fsCode(error)}); --out is unchanged`, true);
  }
}
