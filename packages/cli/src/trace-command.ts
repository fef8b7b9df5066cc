/**
 * `patchwork trace run.jsonl`: the run as an indented tree on the terminal; `--mermaid FILE`
 * writes a sequence diagram, `--html FILE` a self-contained page (docs/trace.md). The trace is
 * read as a stream into a bounded tree (model.ts), whatever its size; a last line cut off by a
 * kill is left out with a warning.
 */
import { readTraceFile, TraceError } from "@patchwork/agent";
import { writeFileAtomic } from "@patchwork/interpreter";
import { UsageError } from "./files.js";
import { renderHtml } from "./trace-view/html.js";
import { TreeBuilder } from "./trace-view/model.js";
import { renderMermaid, renderTree } from "./trace-view/render.js";
import type { Terminal } from "./terminal.js";

export interface TraceArgs {
  file: string;
  mermaid?: string;
  html?: string;
}

export function traceCommand(args: TraceArgs, term: Terminal): number {
  const builder = new TreeBuilder();
  const tree = builder.tree;
  try {
    const read = readTraceFile(args.file, (record) => builder.add(record), { allowCutLastLine: true });
    tree.cutLastLine = read.cutLastLine;
  } catch (error) {
    if (error instanceof TraceError) {
      term.stderr(`patchwork: error: ${error.message}\n`);
      return 1;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== "string") throw error;
    throw new UsageError(`${args.file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : `cannot read (${code})`}`);
  }
  if (tree.cutLastLine !== null) {
    term.stderr(
      `patchwork: warning: ${args.file}:${tree.cutLastLine}: last line incomplete (cut off: was the run killed while writing?); showing the ${(tree.cutLastLine - 1).toLocaleString("en-US")} lines before it\n`,
    );
  }
  const outputs: [string | undefined, () => string][] = [
    [args.mermaid, () => renderMermaid(tree)],
    [args.html, () => renderHtml(tree)],
  ];
  for (const [path, render] of outputs) {
    if (path === undefined) continue;
    if (path === "" || path === "-") term.stdout(render());
    else {
      try {
        writeFileAtomic(path, render());
      } catch (error) {
        throw new UsageError(`${path}: cannot write (${(error as Error).message})`);
      }
    }
  }
  if (args.mermaid === undefined && args.html === undefined) term.stdout(renderTree(tree));
  return 0;
}
