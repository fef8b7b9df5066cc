/**
 * Editor questions answered on plain data (rust-analyzer's `ide` layer): hover, definition,
 * references, rename and symbols, at document offsets (completion is in completion.ts, folding
 * and semantic tokens in views.ts). The language server only converts positions and shapes.
 */
import { BUILTINS, arityText } from "@patchwork/interpreter";
import type { Target } from "./combine.js";
import type { AnalysisDocument } from "./document.js";
import type { Decl, Ref } from "./facts.js";
import { BUILTIN_DOCS, KEYWORDS } from "./docs.js";
import { walk } from "./walk.js";
import { workerMemberAt } from "./workers.js";
import { importSource } from "./combine.js";

export { walk };

export interface Range {
  start: number;
  end: number;
}

/** What is under the cursor: a declaration's name or a reference to one. */
export interface Hit {
  unit: number;
  base: number;
  ref: Ref | null;
  decl: Decl | null;
  target: Target;
}

export function hitAt(doc: AnalysisDocument, offset: number): Hit | null {
  const unit = doc.chunkIndexAt(offset);
  const chunk = doc.chunks[unit];
  if (!chunk) return null;
  const local = offset - chunk.start;
  for (const r of chunk.facts.refs) {
    if (local >= r.start && local <= r.end) return { unit, base: chunk.start, ref: r, decl: null, target: doc.module.resolve(unit, r) };
  }
  for (const d of chunk.facts.decls) {
    if (local >= d.start && local <= d.end) return { unit, base: chunk.start, ref: null, decl: d, target: { kind: "decl", decl: d, unit, base: chunk.start } };
  }
  return null;
}

export function describeDecl(d: Decl): string {
  switch (d.kind) {
    case "fun":
    case "worker":
    case "skill":
    case "task":
    case "method":
      return d.signature ?? `${d.kind} ${d.name}`;
    case "trait":
      return `trait ${d.name}`;
    case "type":
      return `type ${d.name} = ${d.type ?? "?"}`;
    case "import":
      return `import ${d.name}`;
    case "param":
      return `(parameter) ${d.name}${d.type ? `: ${d.type}` : ""}`;
    case "for":
      return `(loop variable) ${d.name}`;
    case "catch":
      return `(caught error) ${d.name}: {message, line, column}`;
    default:
      return `var ${d.name}${d.type ? `: ${d.type}` : ""}`;
  }
}

export function builtinSignature(name: string): string {
  const def = BUILTINS[name];
  if (!def) return name;
  return `${name}(…) — ${arityText(def.min, def.max)} argument(s)`;
}

/** Hover text (Markdown) at an offset, with the range it describes. */
export function hover(doc: AnalysisDocument, offset: number): { markdown: string; range: Range } | null {
  const doHover = doBlockAt(doc, offset);
  if (doHover) return doHover;
  const member = moduleMemberAt(doc, offset);
  if (member) return member;
  const worker = workerHover(doc, offset);
  if (worker) return worker;
  const hit = hitAt(doc, offset);
  if (!hit) return null;
  const at = hit.ref ?? hit.decl!;
  const range = { start: hit.base + at.start, end: hit.base + at.end };
  const t = hit.target;
  if (t.kind === "builtin") return { markdown: "```patchwork\n" + builtinSignature(t.name) + "\n```\n" + (BUILTIN_DOCS[t.name] ?? ""), range };
  if (t.kind === "none") return { markdown: `\`${at.name}\`: not declared`, range };
  const decl = t.decl;
  let text = "```patchwork\n" + describeDecl(decl) + "\n```";
  if (decl.kind === "import") {
    const info = importedDecl(doc, t);
    if (info) text = "```patchwork\n" + describeDecl(info.decl) + "\n```\nfrom `" + info.source + "`";
  }
  return { markdown: text, range };
}

/** A worker member (`self.delegate`, `.settle()`, `.await`, `self.session.id`…): its doc. */
function workerHover(doc: AnalysisDocument, offset: number): { markdown: string; range: Range } | null {
  const chunk = doc.chunks[doc.chunkIndexAt(offset)];
  if (!chunk) return null;
  const at = workerMemberAt(chunk.body, offset - chunk.start);
  return at && { markdown: at.doc, range: { start: chunk.start + at.start, end: chunk.start + at.end } };
}

/** `m.f` where `m` is a module object (`import m from …`, `import ./{m}`): f's declaration there. */
function moduleMemberAt(doc: AnalysisDocument, offset: number): { markdown: string; range: Range } | null {
  const unit = doc.chunkIndexAt(offset);
  const chunk = doc.chunks[unit];
  if (!chunk || !doc.resolver) return null;
  const local = offset - chunk.start;
  const m = chunk.facts.members.find((x) => local >= x.start && local <= x.end);
  if (!m) return null;
  const t = doc.module.resolve(unit, chunk.facts.refs[m.object]!);
  if (t.kind !== "decl" || t.decl.kind !== "import") return null;
  const imp = doc.chunks[t.unit]!.facts.imports[t.decl.importIndex];
  const source = imp && (imp.form === "default" || imp.form === "siblings") ? importSource(imp, t.decl.name) : null;
  const mod = source ? doc.resolver.module(source, doc.fileName) : null;
  const decl = mod && !("error" in mod) ? mod.exports.get(m.member) : undefined;
  if (!decl) return null;
  return { markdown: "```patchwork\n" + describeDecl(decl) + "\n```\nfrom `" + source + "`", range: { start: chunk.start + m.start, end: chunk.start + m.end } };
}

/** The do block under the cursor: the number the model sees. */
function doBlockAt(doc: AnalysisDocument, offset: number): { markdown: string; range: Range } | null {
  const unit = doc.chunkIndexAt(offset);
  const chunk = doc.chunks[unit];
  if (!chunk) return null;
  const local = offset - chunk.start;
  let found: { index: number; start: number; end: number } | null = null;
  walk(chunk.body, (n) => {
    if (n.kind === "DoRef" && local >= n.span.start.offset && local < n.span.start.offset + 2) {
      found = { index: n.index, start: n.span.start.offset, end: n.span.start.offset + 2 };
    }
  });
  if (!found) return null;
  const f = found as { index: number; start: number; end: number };
  return {
    markdown: `**do block ${f.index}**: the model runs it by calling the \`do\` tool with \`{"number": ${f.index}}\``,
    range: { start: chunk.start + f.start, end: chunk.start + f.end },
  };
}

/** For an imported name: the declaration in the imported module. */
function importedDecl(doc: AnalysisDocument, t: Target & { kind: "decl" }): { decl: Decl; path: string; source: string } | null {
  const chunk = doc.chunks[t.unit];
  const imp = chunk?.facts.imports[t.decl.importIndex];
  if (!imp || !doc.resolver) return null;
  const source = importSource(imp, t.decl.name);
  if (!source) return null;
  const mod = doc.resolver.module(source, doc.fileName);
  if ("error" in mod) return null;
  const name = imp.form === "named" ? t.decl.name : null;
  const decl = name ? mod.exports.get(name) : (mod.exports.get("default") ?? null);
  if (decl) return { decl, path: mod.path, source };
  // A module object (siblings, default without a default item): the file itself.
  return { decl: { ...t.decl, start: 0, end: 0 }, path: mod.path, source };
}

export interface Location {
  /** Another file's absolute path, or null for this document. */
  path: string | null;
  start: number;
  end: number;
}

export function definition(doc: AnalysisDocument, offset: number): Location[] {
  const hit = hitAt(doc, offset);
  if (!hit || hit.target.kind !== "decl") return [];
  const t = hit.target;
  if (t.decl.kind === "import") {
    const info = importedDecl(doc, t);
    if (info) return [{ path: info.path, start: info.decl.start, end: info.decl.end }];
  }
  return [{ path: null, start: t.base + t.decl.start, end: t.base + t.decl.end }];
}

function sameDecl(a: Target, b: Target): boolean {
  return a.kind === "decl" && b.kind === "decl" && a.decl === b.decl;
}

/** Every occurrence (declaration and references) of the name under the cursor in this document. */
export function references(doc: AnalysisDocument, offset: number, includeDeclaration = true): Range[] {
  const hit = hitAt(doc, offset);
  if (!hit || hit.target.kind !== "decl") return [];
  const t = hit.target;
  const out: Range[] = [];
  if (includeDeclaration) out.push({ start: t.base + t.decl.start, end: t.base + t.decl.end });
  // A local declaration is only referenced from its own unit.
  const units = t.decl.topLevel ? doc.chunks.map((_, i) => i) : [t.unit];
  for (const u of units) {
    const chunk = doc.chunks[u]!;
    for (const r of chunk.facts.refs) {
      if (r.name !== t.decl.name) continue;
      if (sameDecl(doc.module.resolve(u, r), t)) out.push({ start: chunk.start + r.start, end: chunk.start + r.end });
    }
  }
  return out;
}

/** Edits renaming the name under the cursor; null if it cannot be renamed (a builtin, nothing). */
export function rename(doc: AnalysisDocument, offset: number, newName: string): Range[] | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(newName) || KEYWORDS.includes(newName)) return null;
  const ranges = references(doc, offset, true);
  return ranges.length > 0 ? ranges : null;
}

export type SymbolKind = "function" | "variable" | "class" | "module" | "type" | "method";

export interface DocumentSymbol {
  name: string;
  kind: SymbolKind;
  detail: string;
  range: Range;
  selection: Range;
  children: DocumentSymbol[];
}

/** Functions, workers, traits (with their methods), types, imports and top-level vars. */
export function documentSymbols(doc: AnalysisDocument): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  for (const chunk of doc.chunks) {
    const b = chunk.start;
    const methods = chunk.facts.decls.filter((d) => d.kind === "method");
    for (const d of chunk.facts.decls) {
      if (!d.topLevel) continue;
      const kind: SymbolKind =
        d.kind === "trait" ? "class" : d.kind === "import" ? "module" : d.kind === "type" ? "type" : d.signature ? "function" : "variable";
      const sym: DocumentSymbol = {
        name: d.name,
        kind,
        detail: describeDecl(d),
        range: { start: b + d.nodeStart, end: b + d.nodeEnd },
        selection: { start: b + d.start, end: b + d.end },
        children: [],
      };
      if (d.kind === "trait") {
        for (const m of methods) {
          if (m.nodeStart >= d.nodeStart && m.nodeEnd <= d.nodeEnd) {
            sym.children.push({ name: m.name, kind: "method", detail: describeDecl(m), range: { start: b + m.nodeStart, end: b + m.nodeEnd }, selection: { start: b + m.start, end: b + m.end }, children: [] });
          }
        }
      }
      out.push(sym);
    }
  }
  return out;
}
