import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
// Reading program files and showing diagnostics. No parser here (it is in load-file.ts): the
// run and check paths import this without loading Chevrotain (decision 0010).
import { formatDiagnostics, type Diagnostic, type SourceFile } from "@patchwork/parser/core";
import { UsageError } from "./usage-error.js";

export { UsageError } from "./usage-error.js";

export function readSource(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      // `run hello` beside hello.pw: say the name that is there.
      const near = [".pw", ".json"].map((ext) => path + ext).find((p) => existsSync(p));
      throw new UsageError(`${path}: no such file${near ? `; did you mean ${near}?` : ""}`);
    }
    if (code === "EISDIR") throw new UsageError(`${path}: is a directory, expected a .pw or .json file`);
    throw new UsageError(`${path}: cannot read (${code ?? String(error)})`);
  }
}

/** The program's working directory: `--cwd` (which must be an existing folder: else a usage error naming it), else ours. */
export function workingDirectory(cwd: string | undefined): string {
  if (cwd === undefined) return process.cwd();
  if (cwd === "") throw new UsageError("--cwd needs a folder");
  const dir = resolve(cwd);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new UsageError(`--cwd ${cwd}: no such folder`);
    throw new UsageError(`--cwd ${cwd}: cannot use it (${code ?? String(error)})`);
  }
  if (!isDir) throw new UsageError(`--cwd ${cwd}: not a folder`);
  return dir;
}

export function isThreadbare(path: string): boolean {
  return path.toLowerCase().endsWith(".json");
}

/**
 * Render diagnostics for the terminal. Diagnostics may point into other files than the one
 * given (imported modules); those are read on demand so every message gets its source line.
 */
export function renderDiagnostics(diagnostics: readonly Diagnostic[], main?: SourceFile): string {
  return formatDiagnostics(diagnostics, main, (file) => readFileSync(file, "utf8"))
    .map((text) => text + "\n")
    .join("");
}
