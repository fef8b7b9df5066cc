/**
 * `patchwork trace run.jsonl`: the run as an indented tree on the terminal; `--mermaid FILE`
 * writes a sequence diagram, `--html FILE` a self-contained page (docs/trace.md).
 */
import { readFileSync } from "node:fs";
import { readTrace, TraceError } from "@patchwork/agent";
import { writeFileAtomic } from "@patchwork/interpreter";
import { UsageError } from "./files.js";
import { renderHtml } from "./trace-view/html.js";
import { buildTree } from "./trace-view/model.js";
import { renderMermaid, renderTree } from "./trace-view/render.js";
import type { Terminal } from "./terminal.js";

export interface TraceArgs {
  file: string;
  mermaid?: string;
  html?: string;
}

export function traceCommand(args: TraceArgs, term: Terminal): number {
  let text: string;
  try {
    text = readFileSync(args.file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${args.file}: ${code === "ENOENT" ? "no such file" : `cannot read (${code ?? String(error)})`}`);
  }
  let tree;
  try {
    tree = buildTree(readTrace(text, args.file));
  } catch (error) {
    if (!(error instanceof TraceError)) throw error;
    term.stderr(`patchwork: error: ${error.message}\n`);
    return 1;
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
