/**
 * `patchwork trace run.jsonl`: the run as an indented tree on the terminal; `--mermaid FILE`
 * writes a sequence diagram, `--html FILE` a self-contained page (docs/trace.md). The trace is
 * read as a stream into a bounded tree (model.ts), whatever its size; a last line cut off by a
 * kill is left out with a warning.
 */
import { closeSync, openSync, readSync } from "node:fs";
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

/** Whether the file starts as a cassette does (`{"patchwork": "cassette", …`): read only when it is no trace. */
function isCassette(file: string): boolean {
  try {
    const fd = openSync(file, "r");
    try {
      const head = Buffer.alloc(256);
      const n = readSync(fd, head, 0, head.length, 0);
      return /^\s*\{\s*"patchwork"\s*:\s*"cassette"/.test(head.subarray(0, n).toString("utf8"));
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

export function traceCommand(args: TraceArgs, term: Terminal): number {
  const builder = new TreeBuilder();
  const tree = builder.tree;
  try {
    const read = readTraceFile(args.file, (record) => builder.add(record), { allowCutLastLine: true });
    tree.cutLastLine = read.cutLastLine;
  } catch (error) {
    if (error instanceof TraceError) {
      if (isCassette(args.file)) {
        term.stderr(
          `patchwork: error: ${args.file} is a cassette (written by run --record), not a trace: replay it with \`patchwork run PROGRAM --replay ${args.file}\`; a trace is written by \`patchwork run PROGRAM --trace FILE.jsonl\`\n`,
        );
        return 1;
      }
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
