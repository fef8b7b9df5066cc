/**
 * The files a command (`patchwork test DIR`, `patchwork fmt DIR`) finds under a directory, and
 * what it could not look at: a walk never throws for one bad entry, it says what was wrong
 * with which path and goes on with the rest (issue 21 §4).
 *
 * - Names starting with `.` and `node_modules` are skipped.
 * - Symbolic links are followed, to files and to directories. A link back to a directory the
 *   walk is inside (`up -> ..`) is a loop: reported, not followed. A directory reached a
 *   second time by another way is not walked again.
 * - A dangling link whose name the command looks for, a directory it may not list and an
 *   entry it may not inspect are problems (the commands fail on them); a loop is a note
 *   (nothing is missed: what it leads to is walked already).
 */
import { lstatSync, readdirSync, readlinkSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";

export interface WalkProblem {
  path: string;
  message: string;
  /** "error": something the command could not look at; "note": nothing was missed. */
  severity: "error" | "note";
}

export interface WalkResult {
  files: string[];
  problems: WalkProblem[];
}

/** Why an fs call failed, in words (with its code). */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    ENOENT: "no such file",
    ELOOP: "too many levels of symbolic links",
    EISDIR: "is a directory",
    ENOTDIR: "not a directory",
    EIO: "input/output error",
  };
  if (typeof code !== "string") return error instanceof Error ? error.message : String(error);
  return `${words[code] ?? "cannot read"} (${code})`;
}

/** Every file under `dir` whose name `wanted` accepts, in name order, and the problems met. */
export function walkFiles(dir: string, wanted: (name: string) => boolean): WalkResult {
  const result: WalkResult = { files: [], problems: [] };
  const seen = new Set<string>();
  const inside: string[] = [];
  const key = (st: Stats) => `${st.dev}:${st.ino}`;
  const problem = (path: string, message: string, severity: WalkProblem["severity"] = "error") =>
    result.problems.push({ path, message, severity });

  const visit = (path: string, st: Stats) => {
    const id = key(st);
    seen.add(id);
    inside.push(id);
    let names: string[];
    try {
      names = readdirSync(path).sort((a, b) => a.localeCompare(b));
    } catch (error) {
      problem(path, `cannot list this directory: ${fsReason(error)}`);
      names = [];
    }
    for (const name of names) {
      if (name.startsWith(".") || name === "node_modules") continue;
      entry(join(path, name), name);
    }
    inside.pop();
  };

  const entry = (path: string, name: string) => {
    let link: Stats;
    let st: Stats;
    try {
      link = lstatSync(path);
      st = link.isSymbolicLink() ? statSync(path) : link;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        if (wanted(name)) problem(path, `dangling symbolic link (to ${readLink(path)})`);
      } else if (code === "ELOOP") problem(path, `symbolic link loop (${fsReason(error)})`, "note");
      else problem(path, `cannot inspect: ${fsReason(error)}`);
      return;
    }
    if (st.isDirectory()) {
      const id = key(st);
      if (inside.includes(id)) problem(path, `symbolic link loop (to ${readLink(path)}, a directory it is inside): not followed`, "note");
      else if (!seen.has(id)) visit(path, st);
    } else if (wanted(name)) result.files.push(path);
  };

  let st: Stats;
  try {
    st = statSync(dir);
  } catch (error) {
    problem(dir, fsReason(error));
    return result;
  }
  if (st.isDirectory()) visit(dir, st);
  else result.files.push(dir);
  return result;
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "?";
  }
}

/** A problem as the commands print it: `path: message`. */
export function formatProblem(p: WalkProblem): string {
  return `${p.path}: ${p.severity === "note" ? "note: " : ""}${p.message}\n`;
}
