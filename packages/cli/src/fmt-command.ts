import { readFileSync, statSync, writeFileSync } from "node:fs";
import { format, SourceFile } from "@patchwork/parser";
import { renderDiagnostics, UsageError } from "./files.js";
import type { Terminal } from "./terminal.js";
import { formatProblem, fsReason, walkFiles, type WalkProblem } from "./walk.js";

export interface FmtArgs {
  files: string[];
  check: boolean;
}

/**
 * The `.pw` files a path names: the file itself, or every `.pw` file under a directory (walk.ts:
 * what it cannot look at goes to `problems`).
 */
function expand(path: string, problems: WalkProblem[]): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${path}: ${code === "ENOENT" ? "no such file or directory" : fsReason(error)}`);
  }
  if (!st.isDirectory()) return [path];
  const found = walkFiles(path, (name) => name.endsWith(".pw"));
  problems.push(...found.problems);
  return found.files;
}

/**
 * `patchwork fmt [--check] [FILE|DIR...]`: rewrites each file in the canonical layout (a
 * directory: every .pw file under it); `--check` changes nothing, lists the files that would
 * change and exits 1 if there are any. Without files: stdin to stdout. A file with syntax
 * errors is left alone and its errors are printed (exit 1); so is a file or directory it cannot
 * read or write, a dangling link to a `.pw` file (`path: why`, exit 1, the other files done).
 */
export function fmtCommand(args: FmtArgs, term: Terminal, stdin: () => string): number {
  if (args.files.length === 0) {
    const text = stdin();
    const r = format(text);
    if (!r.ok) {
      term.stderr(renderDiagnostics(r.diagnostics.map((d) => ({ ...d, fileName: "<stdin>" })), new SourceFile(text, "<stdin>")));
      return 1;
    }
    if (args.check) return r.text === text ? 0 : (term.stdout("<stdin>\n"), 1);
    term.stdout(r.text);
    return 0;
  }
  let status = 0;
  const problems: WalkProblem[] = [];
  const files = args.files.flatMap((path) => expand(path, problems));
  for (const p of problems) {
    term.stderr(formatProblem(p));
    if (p.severity === "error") status = 1;
  }
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      term.stderr(`${file}: cannot read: ${fsReason(error)}\n`);
      status = 1;
      continue;
    }
    const r = format(text);
    if (!r.ok) {
      term.stderr(renderDiagnostics(r.diagnostics.map((d) => ({ ...d, fileName: file })), new SourceFile(text, file)));
      status = 1;
      continue;
    }
    if (r.text === text) continue;
    if (args.check) {
      term.stdout(`${file}\n`);
      status = 1;
    } else {
      try {
        writeFileSync(file, r.text);
      } catch (error) {
        term.stderr(`${file}: cannot write: ${fsReason(error)}\n`);
        status = 1;
      }
    }
  }
  return status;
}
