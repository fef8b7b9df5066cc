// What `patchwork check` runs when the parse cache (cache.ts) lacks a file's result: the
// parser and the static checks. Imported with `await import("./check-analysis.js")`, so that
// a warm check never loads them (decision 0010).
import { CachingResolver, checkSource, readFromDisk } from "@patchwork/analysis";
import type { Diagnostic } from "@patchwork/parser";
import { sha256 } from "./cache.js";

export { loadFile } from "./load-file.js";

/** A file the check read (an import), with the hash of its text, or null if it could not be read. */
export interface CheckDependency {
  path: string;
  sha256: string | null;
}

/** Checks files one after another, sharing what it learnt of imported modules. */
export class Checker {
  private deps: CheckDependency[] = [];
  private readonly resolver = new CachingResolver((path) => {
    try {
      const text = readFromDisk(path);
      this.deps.push({ path, sha256: sha256(text) });
      return text;
    } catch (error) {
      this.deps.push({ path, sha256: null });
      throw error;
    }
  });

  /** The file's diagnostics and every file they depend on. */
  check(text: string, fileName: string): { diagnostics: Diagnostic[]; deps: CheckDependency[] } {
    this.deps = [];
    const diagnostics = checkSource(text, { fileName, resolver: this.resolver });
    return { diagnostics, deps: this.deps };
  }
}
