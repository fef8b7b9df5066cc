import { hasErrors } from "@patchwork/parser";
import { listEntries } from "@patchwork/interpreter";
import { renderDiagnostics } from "./files.js";
import { loadFile } from "./load-file.js";
import type { Terminal } from "./terminal.js";

/** `patchwork list FILE`: the entries of a program, with signatures and doc comments. */
export function listCommand(file: string, json: boolean, term: Terminal): number {
  const { source, program, diagnostics } = loadFile(file);
  if (diagnostics.length > 0) term.stderr(renderDiagnostics(diagnostics, source));
  if (hasErrors(diagnostics)) return 1;
  const entries = listEntries(program, source.text);
  if (json) {
    const data = entries.map(({ name, kind, target, params, signature, doc, line }) => ({ name, kind, target, params, signature, doc, line }));
    term.stdout(JSON.stringify(data, null, 2) + "\n");
    return 0;
  }
  if (entries.length === 0) {
    term.stdout(`${file}: no entries (no fun, worker, skill or trait methods)\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const e of entries) {
    const where = e.target !== e.name ? `  (${e.target})` : "";
    lines.push(`${e.kind} ${e.signature}${where}`);
    if (e.doc) for (const l of e.doc.split("\n")) lines.push(`    ${l}`);
  }
  term.stdout(lines.join("\n") + "\n");
  return 0;
}
