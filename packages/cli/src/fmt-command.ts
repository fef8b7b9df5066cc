import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { format, SourceFile } from "@patchwork/parser";
import { readSource, renderDiagnostics, UsageError } from "./files.js";
import type { Terminal } from "./terminal.js";

export interface FmtArgs {
  files: string[];
  check: boolean;
}

/** The `.pw` files a path names: the file itself, or every `.pw` file under a directory. */
function expand(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UsageError(`${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(path, name);
    if (statSync(p).isDirectory()) out.push(...expand(p));
    else if (name.endsWith(".pw")) out.push(p);
  }
  return out;
}

/**
 * `patchwork fmt [--check] [FILE|DIR...]`: rewrites each file in the canonical layout (a
 * directory: every .pw file under it); `--check` changes nothing, lists the files that would
 * change and exits 1 if there are any. Without files: stdin to stdout. A file with syntax
 * errors is left alone and its errors are printed (exit 1).
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
  for (const file of args.files.flatMap(expand)) {
    const text = readSource(file);
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
      writeFileSync(file, r.text);
    }
  }
  return status;
}
