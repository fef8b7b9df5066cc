/**
 * What the language server converts to LSP's shapes: severities and kinds, a diagnostic, an
 * offset range as a line-and-character range, semantic tokens in LSP's relative encoding (a
 * token spanning lines split per line).
 */
import { SEMANTIC_TYPES, semanticTokens, type AnalysisDocument, type OffsetDiagnostic } from "@patchwork/analysis";
import lsp from "vscode-languageserver/node.js";
import type { Diagnostic, Range } from "vscode-languageserver/node.js";
import type { Open } from "./open.js";

const { DiagnosticSeverity, CompletionItemKind, SymbolKind, DiagnosticTag } = lsp;

export const severities = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  hint: DiagnosticSeverity.Hint,
} as const;

export const completionKinds = {
  keyword: CompletionItemKind.Keyword,
  function: CompletionItemKind.Function,
  variable: CompletionItemKind.Variable,
  module: CompletionItemKind.Module,
  property: CompletionItemKind.Property,
  file: CompletionItemKind.File,
} as const;

export const symbolKinds = {
  function: SymbolKind.Function,
  variable: SymbolKind.Variable,
  class: SymbolKind.Class,
  module: SymbolKind.Module,
  type: SymbolKind.TypeParameter,
  method: SymbolKind.Method,
} as const;

export function diagnostic(o: Open, d: OffsetDiagnostic): Diagnostic {
  const out: Diagnostic = { range: range(o, d), severity: severities[d.severity], code: d.code, source: "patchwork", message: d.message };
  if (d.code === "PW5005") out.tags = [DiagnosticTag.Unnecessary];
  return out;
}

export function range(o: Open, r: { start: number; end: number }): Range {
  return { start: o.td.positionAt(r.start), end: o.td.positionAt(r.end) };
}

export function encodeTokens(o: Open & { doc: AnalysisDocument }): number[] {
  const data: number[] = [];
  let line = 0;
  let char = 0;
  for (const t of semanticTokens(o.doc)) {
    // LSP tokens do not span lines: split multi-line tokens per line.
    let s = t.start;
    while (s < t.end) {
      const pos = o.td.positionAt(s);
      const nl = o.td.getText().indexOf("\n", s);
      const e = nl < 0 || nl >= t.end ? t.end : nl;
      if (e > s) {
        const dl = pos.line - line;
        data.push(dl, dl === 0 ? pos.character - char : pos.character, e - s, SEMANTIC_TYPES.indexOf(t.type), 0);
        line = pos.line;
        char = pos.character;
      }
      s = e + 1;
    }
  }
  return data;
}
