import { SourceFile, loadThreadbare, parse, type Diagnostic, type Program } from "@patchwork/parser";
import { isThreadbare, readSource } from "./files.js";

/** A program file read from disk and parsed (Patchwork `.pw` or Threadbare `.json`). */
export interface LoadedFile {
  source: SourceFile;
  program: Program;
  diagnostics: Diagnostic[];
}

export function loadFile(path: string): LoadedFile {
  const text = readSource(path);
  const source = new SourceFile(text, path);
  const { program, diagnostics } = isThreadbare(path)
    ? loadThreadbare(text, { fileName: path })
    : parse(text, { fileName: path });
  return { source, program, diagnostics };
}
