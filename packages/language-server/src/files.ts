/**
 * The files the language server looks at: the path of a document's URI, and the `.pw` files of
 * a folder (import path completion) and of a workspace folder's tree (references, rename).
 */
import { fileURLToPath } from "node:url";
import { readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";

export function pathOf(uri: string): string {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

/**
 * The `.pw` files under `dir` (not in node_modules or hidden folders), up to `max` files in all,
 * looking into at most 2,000 folders, 8 deep (a workspace folder of a whole disk stays cheap).
 */
export function listPwTree(dir: string, out: Set<string>, max: number, depth = 0, budget = { folders: 2000 }): void {
  if (depth > 8 || out.size >= max || --budget.folders < 0) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (out.size >= max) return;
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) listPwTree(p, out, max, depth + 1, budget);
    else if (e.name.endsWith(".pw")) out.add(p);
  }
}

/** `.pw` files of a directory (import path completion). */
export function listPw(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith(".pw"));
  } catch {
    return [];
  }
}
