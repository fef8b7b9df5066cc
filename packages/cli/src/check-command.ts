import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { hasErrors, SourceFile, type Diagnostic } from "@patchwork/parser/core";
import { loadScript, ParseCache, sha256, type Loaded } from "./cache.js";
import type { CheckDependency, Checker } from "./check-analysis.js";
import { isThreadbare, readSource, renderDiagnostics } from "./files.js";
import type { Terminal } from "./terminal.js";

type Analysis = typeof import("./check-analysis.js");

/** The parser and the checks (check-analysis.ts), loaded on a miss: in the bundle, a script with a code cache (cache.ts `loadScript`). */
const loadCheckAnalysis = (cache: ParseCache | null) => loadScript<Analysis>("check-analysis", cache, () => import("./check-analysis.js"));

/**
 * `patchwork check FILE...`: parse errors and the static checks of @patchwork/analysis (the
 * language server's diagnostics: same codes, same messages). Threadbare files are only loaded.
 * Exit 1 if any file has an error (warnings and hints do not count).
 *
 * A file's diagnostics are cached (cache.ts) with the hashes of the files its imports read:
 * when neither it nor any of those changed, they come from the cache and neither the parser
 * nor the analysis is loaded.
 */
export async function checkCommand(paths: readonly string[], term: Terminal, options: { noCache?: boolean } = {}): Promise<number> {
  let status = 0;
  const files = await expandFolders(paths, term, () => (status = 1));
  const cache = ParseCache.open({ noCache: options.noCache });
  let loaded: Loaded<Analysis> | undefined;
  let checker: Checker | undefined;
  for (const file of files) {
    let diagnostics: Diagnostic[];
    let source: SourceFile;
    if (isThreadbare(file)) {
      loaded ??= await loadCheckAnalysis(cache);
      ({ source, diagnostics } = loaded.exports.loadFile(file));
    } else {
      const text = readSource(file);
      source = new SourceFile(text, file);
      const key = cache?.key("check", [resolve(file), file, text]);
      const cached = cache && key ? cachedCheck(cache.get("check", key)) : undefined;
      if (cached) diagnostics = cached;
      else {
        loaded ??= await loadCheckAnalysis(cache);
        checker ??= new loaded.exports.Checker();
        const result = checker.check(text, file);
        diagnostics = result.diagnostics;
        if (cache && key) cache.put("check", key, result);
      }
    }
    if (diagnostics.length > 0) term.stderr(renderDiagnostics(diagnostics, source));
    if (hasErrors(diagnostics)) status = 1;
  }
  loaded?.done();
  return status;
}

/**
 * The files to check: a folder stands for every `.pw` file under it (as for `fmt`, `mcp`,
 * `test`); what the walk cannot look at is said (`path: why`) and fails the check. The walk's
 * code loads only when a folder is given.
 */
async function expandFolders(paths: readonly string[], term: Terminal, failed: () => void): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    let folder = false;
    try {
      folder = statSync(path).isDirectory();
    } catch {
      // (readSource says what is wrong with it)
    }
    if (!folder) {
      files.push(path);
      continue;
    }
    const { formatProblem, walkFiles } = await import("./walk.js");
    const found = walkFiles(path, (name) => name.endsWith(".pw"));
    for (const p of found.problems) {
      term.stderr(formatProblem(p));
      if (p.severity === "error") failed();
    }
    files.push(...found.files);
  }
  return files;
}

/** A cached check's diagnostics, if every file it read is unchanged. */
function cachedCheck(value: unknown): Diagnostic[] | undefined {
  const entry = value as { diagnostics?: unknown; deps?: unknown } | undefined;
  if (!entry || !Array.isArray(entry.diagnostics) || !Array.isArray(entry.deps)) return undefined;
  for (const dep of entry.deps as CheckDependency[]) {
    let now: string | null;
    try {
      now = sha256(readFileSync(dep.path, "utf8"));
    } catch {
      now = null;
    }
    if (now !== dep.sha256) return undefined;
  }
  return entry.diagnostics as Diagnostic[];
}
