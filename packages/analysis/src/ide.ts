/**
 * Editor questions answered on plain data (rust-analyzer's `ide` layer): hover, definition,
 * references, rename, completion, symbols, folding and semantic tokens, at document offsets.
 * The language server only converts positions and shapes.
 */
import { BUILTINS, STD_MODULES, arityText } from "@patchwork/interpreter";
import { parse, type Node, type TopLevel } from "@patchwork/parser";
import type { Target } from "./combine.js";
import type { AnalysisDocument, BuildControl, Chunk } from "./document.js";
import { unitFacts, type Decl, type Ref, type UnitFacts } from "./facts.js";
import { BUILTIN_DOCS, KEYWORDS } from "./docs.js";
import { modulePath } from "./imports.js";
import { walk } from "./walk.js";
import { workerMemberAt, workerMemberCompletion } from "./workers.js";
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

function describeDecl(d: Decl): string {
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

export type CompletionKind = "keyword" | "function" | "variable" | "module" | "property" | "file";

export interface CompletionItem {
  label: string;
  kind: CompletionKind;
  detail?: string;
  documentation?: string;
}

/**
 * The closers that would balance what the current line opened before the cursor (`${`, `(`,
 * `[`, `{`, `"`): `print(x` → `)`, `"a ${na` → `}"`.
 */
function closersOf(line: string): string {
  const stack: string[] = [];
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    const inString = stack[stack.length - 1] === '"';
    if (ch === "\\") i++;
    else if (ch === '"') {
      if (inString) stack.pop();
      else stack.push('"');
    } else if (ch === "$" && line[i + 1] === "{") {
      stack.push("}");
      i++;
    } else if (inString) continue;
    else if (ch === "(") stack.push(")");
    else if (ch === "[") stack.push("]");
    else if (ch === "{") stack.push("}");
    else if ((ch === ")" || ch === "]" || ch === "}") && stack[stack.length - 1] === ch) stack.pop();
  }
  return stack.reverse().join("");
}

/**
 * The facts and AST of the unit holding `offset`. A unit with syntax errors (a half-typed
 * line) is analysed again with `filler` at the cursor and the cursor's line closed
 * (`print(na` + `)`), so that the names of the function around the cursor are known.
 */
function unitAt(doc: AnalysisDocument, offset: number, filler = ""): { unit: number; local: number; facts: UnitFacts; body: readonly TopLevel[]; base: number } | null {
  const unit = doc.chunkIndexAt(offset);
  const chunk = doc.chunks[unit];
  if (!chunk) return null;
  const local = offset - chunk.start;
  const plain = { unit, local, facts: chunk.facts, body: chunk.body, base: chunk.start };
  if (!chunk.parseDiagnostics.some((d) => d.severity === "error")) return plain;
  const closers = closersOf(chunk.text.slice(chunk.text.lastIndexOf("\n", local - 1) + 1, local));
  // (Nothing to close, or a line no one types: 10,000 `${`.)
  if ((!closers && !filler) || closers.length > 64) return plain;
  const repaired = chunk.text.slice(0, local) + filler + closers + chunk.text.slice(local);
  const r = parse(repaired, { fileName: doc.fileName });
  if (r.diagnostics.some((d) => d.severity === "error")) return plain;
  return { unit, local, facts: unitFacts(r.program.body, repaired), body: r.program.body, base: chunk.start };
}

/** Names that make sense at `offset`: keywords, builtins, names in scope, import paths. */
export function completion(doc: AnalysisDocument, offset: number, listFiles?: (dir: string) => string[]): CompletionItem[] {
  const text = doc.text;
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  if (/^\s*import\s+std\.\w*$/.test(before)) {
    return Object.keys(STD_MODULES).map((m) => ({ label: m, kind: "module", detail: `std.${m}` }));
  }
  // `import ./{a, b}`: the .pw files next to this one, by name.
  if (/^\s*import\s+\.\/\{[\w\s,]*$/.test(before)) {
    return (listFiles?.(modulePath("./", doc.fileName).replace(/\.pw$/, "")) ?? [])
      .filter((f) => f.endsWith(".pw"))
      .map((f) => ({ label: f.slice(0, -3), kind: "file" as const, detail: f }));
  }
  const imp = /^\s*import\s+(?:\{[^}]*\}\s*from\s*|\w+\s+from\s*)"(\.{1,2}\/[^"]*)?$/.exec(before);
  if (imp) {
    const dir = modulePath(imp[1]?.replace(/[^/]*$/, "") || "./", doc.fileName).replace(/\.pw$/, "");
    return (listFiles?.(dir) ?? []).filter((f) => f.endsWith(".pw")).map((f) => ({ label: f, kind: "file" as const }));
  }
  const workerMembers = /\.\s*\w*$/.test(before) ? workerMemberCompletion(text.slice(Math.max(0, offset - 20_000), offset)) : null;
  if (workerMembers) return workerMembers.map((m) => ({ label: m.label, kind: m.label === "await" ? ("keyword" as const) : ("property" as const), documentation: m.documentation }));
  const member = /([A-Za-z_]\w*)\.\w*$/.exec(before);
  if (member) return memberCompletion(doc, offset, member[1]!);
  const out = new Map<string, CompletionItem>();
  const at = unitAt(doc, offset);
  if (at) {
    for (const s of at.facts.scopes) {
      if (at.local < s.start || at.local > s.end) continue;
      for (const id of s.decls) {
        const d = at.facts.decls[id]!;
        if (d.kind === "type" || (d.start > at.local && !d.topLevel)) continue;
        out.set(d.name, { label: d.name, kind: d.signature ? "function" : "variable", detail: describeDecl(d) });
      }
    }
  }
  for (const [name, list] of doc.module.tops) {
    if (!out.has(name)) out.set(name, { label: name, kind: list[0]!.decl.signature ? "function" : "variable", detail: describeDecl(list[0]!.decl) });
  }
  for (const name of Object.keys(BUILTINS)) {
    if (!out.has(name)) out.set(name, { label: name, kind: "function", detail: builtinSignature(name), documentation: BUILTIN_DOCS[name] ?? "" });
  }
  // Inside prompt text or a shell line only names make sense; in code, keywords too.
  if (!/\$\{[^}]*$/.test(before)) for (const k of KEYWORDS) if (!out.has(k)) out.set(k, { label: k, kind: "keyword" });
  return [...out.values()];
}

/** Members of a name bound to an object literal, a trait or an imported module. */
function memberCompletion(doc: AnalysisDocument, offset: number, name: string): CompletionItem[] {
  // After `name.` a member name is missing too: `_` stands for it.
  const at = unitAt(doc, offset, "_");
  if (!at) return [];
  const { unit, local } = at;
  const r: Ref = { name, start: local, end: local, decl: -1, inFunction: true, optional: false, write: false, interpolated: false, argc: -1, callStart: 0, callEnd: 0 };
  // The innermost visible declaration of that name in this unit, else the module's.
  let target: Target = doc.module.resolve(unit, r);
  let localDecl = false;
  for (const d of at.facts.decls) {
    if (d.name === name && d.start < local && !d.topLevel) {
      target = { kind: "decl", decl: d, unit, base: at.base };
      localDecl = true;
    }
  }
  if (target.kind !== "decl") return [];
  const d = target.decl;
  const out: CompletionItem[] = [];
  if (d.kind === "import") {
    const imp = doc.chunks[target.unit]!.facts.imports[d.importIndex];
    const source = imp ? importSource(imp, d.name) : null;
    const mod = source && doc.resolver ? doc.resolver.module(source, doc.fileName) : null;
    if (mod && !("error" in mod)) for (const [n, e] of mod.exports) out.push({ label: n, kind: e.signature ? "function" : "variable", detail: describeDecl(e) });
    return out;
  }
  const body = localDecl ? at.body : doc.chunks[target.unit]!.body;
  walk(body, (n) => {
    if (n.kind === "TraitDecl" && n.name === d.name) for (const m of n.methods) out.push({ label: m.name, kind: "function" });
    if (n.kind === "VarDecl" && n.pattern.kind === "IdentPattern" && n.pattern.span.start.offset === d.start && n.init?.kind === "Object") {
      for (const p of n.init.properties) out.push({ label: p.key, kind: "property" });
    }
  });
  return out;
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

/**
 * What the editor queries need from a chunk's AST, found in one walk and kept as long as the
 * chunk is (an edit replaces only the chunks it touches): folds and the structural semantic
 * tokens, at offsets relative to the chunk; and the last token list with the types its names
 * had then.
 */
interface ChunkView {
  folds: Range[];
  structural: SemanticToken[];
  refTypes: string | null;
  tokens: SemanticToken[];
}

const views = new WeakMap<Chunk, ChunkView>();

function viewOf(chunk: Chunk): ChunkView {
  let v = views.get(chunk);
  if (v) return v;
  const folds: Range[] = [];
  const structural: SemanticToken[] = [];
  const text = chunk.text;
  walk(chunk.body, (n) => {
    const s = n.span.start.offset;
    const e = n.span.end.offset;
    switch (n.kind) {
      case "Block":
      case "Think":
      case "TraitDecl":
      case "Object":
      case "Array": {
        const nl = text.indexOf("\n", s);
        if (nl >= 0 && nl < e) folds.push({ start: s, end: e });
        break;
      }
      case "PromptText":
        structural.push({ start: s, end: e, type: "prompt" });
        break;
      case "PromptInterp":
        structural.push({ start: s, end: e, type: "interpolation" });
        break;
      case "DoRef":
        structural.push({ start: s, end: s + 2, type: "doBlock" });
        break;
      case "ShellText":
        structural.push({ start: s, end: e, type: "shell" });
        break;
      case "ShellInterp":
        structural.push({ start: s, end: e, type: "shellInterpolation" });
        break;
    }
  });
  for (const c of chunk.comments) structural.push({ start: c.span.start.offset, end: c.span.end.offset, type: "comment" });
  v = { folds, structural, refTypes: null, tokens: [] };
  views.set(chunk, v);
  return v;
}

/**
 * Computes what the editor queries keep per chunk (folds, structural tokens) ahead of the
 * first request, pausing as `AnalysisDocument.build` does; false when stopped as stale.
 */
export async function prepareQueries(doc: AnalysisDocument, control: BuildControl): Promise<boolean> {
  const slice = control.sliceMs ?? 8;
  let t0 = performance.now();
  for (const chunk of doc.chunks) {
    viewOf(chunk);
    if (performance.now() - t0 >= slice) {
      await control.pause();
      if (control.stale?.()) return false;
      t0 = performance.now();
    }
  }
  return true;
}

/** Blocks, prompts, shell captures and comment runs spanning several lines. */
export function foldingRanges(doc: AnalysisDocument): Range[] {
  const out: Range[] = [];
  for (const chunk of doc.chunks) for (const f of viewOf(chunk).folds) out.push({ start: chunk.start + f.start, end: chunk.start + f.end });
  return out;
}

export type SemanticType = "keyword" | "prompt" | "interpolation" | "doBlock" | "shell" | "shellInterpolation" | "function" | "variable" | "parameter" | "comment";
export const SEMANTIC_TYPES: readonly SemanticType[] = ["keyword", "prompt", "interpolation", "doBlock", "shell", "shellInterpolation", "function", "variable", "parameter", "comment"];

export interface SemanticToken {
  start: number;
  end: number;
  type: SemanticType;
}

/**
 * Tokens that tell prompt text from its interpolations and `do` blocks, shell text from shell
 * interpolations, and names by what they denote. Sorted, non-overlapping.
 */
export function semanticTokens(doc: AnalysisDocument): SemanticToken[] {
  const result: SemanticToken[] = [];
  doc.chunks.forEach((chunk, u) => {
    const view = viewOf(chunk);
    const refs: SemanticToken[] = [];
    let types = "";
    for (const r of chunk.facts.refs) {
      const t = doc.module.resolve(u, r);
      const type: SemanticType = t.kind === "builtin" || (t.kind === "decl" && t.decl.signature) ? "function" : t.kind === "decl" && t.decl.kind === "param" ? "parameter" : "variable";
      types += type[0];
      refs.push({ start: r.start, end: r.end, type });
    }
    // The names' types depend on the rest of the module: the chunk's list is redone when they change.
    if (view.refTypes !== types) {
      view.tokens = flatten([...view.structural.map((t) => ({ ...t })), ...refs]);
      view.refTypes = types;
    }
    for (const t of view.tokens) result.push({ start: chunk.start + t.start, end: chunk.start + t.end, type: t.type });
  });
  return result;
}

/** Sorted, non-overlapping tokens; where two overlap, the innermost wins. */
function flatten(out: SemanticToken[]): SemanticToken[] {
  out.sort((x, y) => x.start - y.start || y.end - x.end);
  // Keep the innermost token where two overlap (an interpolation inside prompt text is its own token).
  const flat: SemanticToken[] = [];
  for (const t of out) {
    const last = flat[flat.length - 1];
    if (last && t.start < last.end) {
      // Split the outer token around the inner one.
      const tail = { start: t.end, end: last.end, type: last.type };
      last.end = t.start;
      if (last.end <= last.start) flat.pop();
      flat.push(t);
      if (tail.end > tail.start) flat.push(tail);
      continue;
    }
    flat.push(t);
  }
  const sorted = flat.filter((t) => t.end > t.start).sort((x, y) => x.start - y.start);
  const result: SemanticToken[] = [];
  for (const t of sorted) if (result.length === 0 || t.start >= result[result.length - 1]!.end) result.push(t);
  return result;
}
