/**
 * Questions that span files: definition, references and rename of a module's items through
 * the files that import it (`import {f} from "./m.pw"` and `m.f` on a module object bound by
 * `import m from "./m.pw"` or `import ./{m}`). The files are the caller's: the language server
 * gives its open documents first, then the `.pw` files of the workspace.
 */
import { basename } from "node:path";
import { importSource, isBuiltin } from "./combine.js";
import { KEYWORDS } from "./docs.js";
import type { AnalysisDocument } from "./document.js";
import type { Decl } from "./facts.js";
import { definition, hitAt, references, type Location } from "./ide.js";
import { exportsOf, modulePath } from "./imports.js";

export interface Workspace {
  /** The analysed document of a file (the open one, else read from disk); null if unreadable. */
  document(path: string): AnalysisDocument | null;
  /** The files that may import others: open documents and the workspace's `.pw` files. */
  files(): Iterable<string>;
}

export interface FileRange {
  /** Absolute path of the file. */
  path: string;
  start: number;
  end: number;
}

/** What a position names, as far as other files are concerned. */
type Named =
  /** An item of module `path` that importers see as `name`. */
  | { kind: "export"; path: string; name: string }
  /** A name known only in its own file (a variable, a parameter, `import m from …`'s `m`). */
  | { kind: "local"; path: string; name: string; offset: number; decl: Decl; unit: number }
  /** `m` of `import ./{m}`: the name of the file m.pw. */
  | { kind: "file"; name: string }
  | { kind: "builtin"; name: string }
  | { kind: "undeclared"; name: string };

/** The module an import decl names (for `import ./{a, b}`, the one of `name`), or null. */
function importedPath(doc: AnalysisDocument, unit: number, d: Decl): string | null {
  const imp = doc.chunks[unit]?.facts.imports[d.importIndex];
  if (!imp) return null;
  const source = importSource(imp, d.name);
  return source ? modulePath(source, doc.fileName) : null;
}

function importForm(doc: AnalysisDocument, unit: number, d: Decl): string | null {
  return doc.chunks[unit]?.facts.imports[d.importIndex]?.form ?? null;
}

/** `m.f` under the cursor where `m` is a module object: the module's path and `f`. */
function memberAt(doc: AnalysisDocument, offset: number): { path: string; name: string } | null {
  const unit = doc.chunkIndexAt(offset);
  const chunk = doc.chunks[unit];
  if (!chunk) return null;
  const local = offset - chunk.start;
  for (const m of chunk.facts.members) {
    if (local < m.start || local > m.end) continue;
    const t = doc.module.resolve(unit, chunk.facts.refs[m.object]!);
    if (t.kind !== "decl" || t.decl.kind !== "import") return null;
    const form = importForm(doc, t.unit, t.decl);
    if (form !== "default" && form !== "siblings") return null;
    const path = importedPath(doc, t.unit, t.decl);
    return path ? { path, name: m.member } : null;
  }
  return null;
}

function symbolAt(ws: Workspace, path: string, offset: number): Named | null {
  const doc = ws.document(path);
  if (!doc) return null;
  const member = memberAt(doc, offset);
  if (member) return { kind: "export", ...member };
  const hit = hitAt(doc, offset);
  if (!hit) return null;
  const t = hit.target;
  if (t.kind === "builtin") return { kind: "builtin", name: t.name };
  if (t.kind === "none") return { kind: "undeclared", name: (hit.ref ?? hit.decl)!.name };
  const d = t.decl;
  if (d.kind === "import") {
    const form = importForm(doc, t.unit, d);
    const from = importedPath(doc, t.unit, d);
    if (form === "named" && from) return { kind: "export", path: from, name: d.name };
    if (form === "siblings") return { kind: "file", name: d.name };
  } else if (d.topLevel && exportsOf(doc.module.units.flatMap((u) => u.facts.decls)).get(d.name) === d) {
    return { kind: "export", path: doc.fileName, name: d.name };
  }
  return { kind: "local", path, name: d.name, offset: t.base + d.start, decl: d, unit: t.unit };
}

/** Where an exported item is declared: its module's document and the name's offset. */
function exportDecl(ws: Workspace, path: string, name: string): { doc: AnalysisDocument; offset: number; decl: Decl } | null {
  const doc = ws.document(path);
  if (!doc) return null;
  const decl = exportsOf(doc.module.units.flatMap((u) => u.facts.decls)).get(name);
  const top = decl ? doc.module.tops.get(decl.name)?.find((t) => t.decl === decl) : undefined;
  return top && decl ? { doc, offset: top.base + decl.start, decl } : null;
}

/** Definition, with `m.f` on a module object going to `f` in m's file. */
export function workspaceDefinition(ws: Workspace, path: string, offset: number): FileRange[] {
  const doc = ws.document(path);
  if (!doc) return [];
  const member = memberAt(doc, offset);
  if (member) {
    const at = exportDecl(ws, member.path, member.name);
    return at ? [{ path: member.path, start: at.offset, end: at.offset + at.decl.name.length }] : [];
  }
  return definition(doc, offset).map((l: Location) => ({ path: l.path ?? path, start: l.start, end: l.end }));
}

/** Every use of module `path`'s item `name`: in the module and in every file that imports it. */
function exportReferences(ws: Workspace, path: string, name: string, includeDeclaration: boolean, also: string): FileRange[] {
  const out: FileRange[] = [];
  const at = exportDecl(ws, path, name);
  if (at) for (const r of references(at.doc, at.offset, includeDeclaration)) out.push({ path, ...r });
  const files = new Set([also, ...ws.files()]);
  files.delete(path);
  for (const file of files) {
    const doc = ws.document(file);
    if (!doc || !doc.text.includes("import")) continue;
    doc.chunks.forEach((chunk, unit) => {
      for (const d of chunk.facts.decls) {
        if (d.kind !== "import" || importedPath(doc, unit, d) !== path) continue;
        const form = importForm(doc, unit, d);
        if (form === "named" && d.name === name) {
          out.push({ path: file, start: chunk.start + d.start, end: chunk.start + d.end });
          for (const r of references(doc, chunk.start + d.start, false)) out.push({ path: file, ...r });
        } else if (form === "default" || form === "siblings") {
          // `m.name` where `m` is this module object.
          doc.chunks.forEach((c, u) => {
            for (const m of c.facts.members) {
              if (m.member !== name) continue;
              const t = doc.module.resolve(u, c.facts.refs[m.object]!);
              if (t.kind === "decl" && t.decl === d) out.push({ path: file, start: c.start + m.start, end: c.start + m.end });
            }
          });
        }
      }
    });
  }
  return sortUnique(out);
}

function sortUnique(list: FileRange[]): FileRange[] {
  const seen = new Set<string>();
  const out: FileRange[] = [];
  for (const r of list) {
    const key = `${r.path}\0${r.start}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(r);
  }
  return out.sort((a, b) => (a.path === b.path ? a.start - b.start : a.path < b.path ? -1 : 1));
}

/** References of the name under the cursor, across the files that import its module. */
export function workspaceReferences(ws: Workspace, path: string, offset: number, includeDeclaration = true): FileRange[] {
  const sym = symbolAt(ws, path, offset);
  if (!sym) return [];
  if (sym.kind === "export") return exportReferences(ws, sym.path, sym.name, includeDeclaration, path);
  if (sym.kind === "local" || sym.kind === "file") {
    const doc = ws.document(path)!;
    return references(doc, offset, includeDeclaration).map((r) => ({ path, ...r }));
  }
  return [];
}

export type RenameResult = { edits: FileRange[] } | { error: string };

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The range of the name that would be renamed at `offset` (LSP prepareRename), or why not. */
export function workspacePrepareRename(ws: Workspace, path: string, offset: number): { start: number; end: number } | { error: string } {
  const sym = symbolAt(ws, path, offset);
  const refusal = sym ? refuse(sym) : "there is no name here to rename";
  if (refusal) return { error: refusal };
  const own = workspaceReferences(ws, path, offset, true).find((r) => r.path === path && r.start <= offset && offset <= r.end);
  return own ? { start: own.start, end: own.end } : { error: "there is no name here to rename" };
}

function refuse(sym: Named): string | null {
  switch (sym.kind) {
    case "builtin":
      return `'${sym.name}' is a builtin function: it cannot be renamed`;
    case "undeclared":
      return `'${sym.name}' is not declared: there is nothing to rename`;
    case "file":
      return `'${sym.name}' is the name of the file ${sym.name}.pw (import ./{${sym.name}}): rename the file instead`;
    default:
      return null;
  }
}

/**
 * Renames the name under the cursor everywhere it is used (across importing files for a
 * module's item). Refused, with a message, for a builtin, an invalid or reserved name, and a
 * name that would clash: already declared where one of the occurrences can see it, or already
 * used where the renamed declaration would capture it.
 */
export function workspaceRename(ws: Workspace, path: string, offset: number, newName: string): RenameResult {
  if (!IDENT.test(newName) || KEYWORDS.includes(newName)) return { error: `'${newName}' is not a valid name (a name is letters, digits and _, not starting with a digit, and not a keyword)` };
  const sym = symbolAt(ws, path, offset);
  if (!sym) return { error: "there is no name here to rename" };
  const refusal = refuse(sym);
  if (refusal) return { error: refusal };
  if (isBuiltin(newName)) return { error: `'${newName}' is a builtin function: a declaration of that name would hide it` };
  const edits = workspaceReferences(ws, path, offset, true);
  if (sym.kind === "export" || sym.kind === "local") {
    if (newName === sym.name) return { edits };
    const clash = findClash(ws, sym, edits, newName);
    if (clash) return { error: `cannot rename '${sym.name}' to '${newName}': ${clash}` };
  }
  return { edits };
}

function where(ws: Workspace, path: string, offset: number): string {
  const p = ws.document(path)!.sourceFile.positionAt(offset);
  return `${basename(path)}:${p.line}:${p.column}`;
}

/** Why renaming the occurrences `sites` of `sym` to `newName` would change what a name means. */
function findClash(ws: Workspace, sym: Named & { kind: "export" | "local" }, sites: FileRange[], newName: string): string | null {
  const byFile = new Map<string, FileRange[]>();
  for (const s of sites) byFile.set(s.path, [...(byFile.get(s.path) ?? []), s]);
  const moduleLevel = sym.kind === "export" || sym.decl.topLevel;
  for (const [file, list] of byFile) {
    const doc = ws.document(file);
    if (!doc) continue;
    let named = false;
    for (const s of list) {
      const unit = doc.chunkIndexAt(s.start);
      const chunk = doc.chunks[unit]!;
      const local = s.start - chunk.start;
      if (chunk.facts.members.some((m) => m.start === local)) continue; // `m.name`: no scope
      named = true;
      // A declaration of the new name in a scope around this occurrence would take it over (or
      // be hidden). The unit's top scope (the first) is the module's: see `moduleLevel` below.
      for (const scope of chunk.facts.scopes.slice(1)) {
        if (local < scope.start || local > scope.end) continue;
        for (const id of scope.decls) {
          const d = chunk.facts.decls[id]!;
          if (d.name === newName && d.kind !== "type") return `'${newName}' is already declared at ${where(ws, file, chunk.start + d.start)}`;
        }
      }
    }
    if (!named) continue;
    if (moduleLevel) {
      const top = doc.module.tops.get(newName)?.[0];
      if (top) return `'${newName}' is already declared at ${where(ws, file, top.base + top.decl.start)}`;
      // A use of the new name that resolves at module level would now mean the renamed item.
      for (const chunk of doc.chunks) {
        const r = chunk.facts.refs.find((x) => x.name === newName && x.decl < 0);
        if (r) return `'${newName}' is already used at ${where(ws, file, chunk.start + r.start)}`;
      }
    } else if (sym.kind === "local") {
      // Uses of the new name inside the renamed variable's scope that mean something outside it.
      const chunk = doc.chunks[sym.unit]!;
      const scope = chunk.facts.scopes.find((s) => s.decls.includes(sym.decl.id));
      if (!scope) continue;
      for (const r of chunk.facts.refs) {
        if (r.name !== newName || r.start < scope.start || r.end > scope.end) continue;
        const d = r.decl >= 0 ? chunk.facts.decls[r.decl]! : null;
        if (!d || d.start < scope.start || d.start > scope.end) return `'${newName}' is already used at ${where(ws, file, chunk.start + r.start)}`;
      }
    }
  }
  return null;
}
