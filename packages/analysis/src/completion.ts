/**
 * Completion at a document offset: keywords, builtins, the names in scope, members (a worker's,
 * an object literal's, a trait's, an imported module's) and import paths. A unit with syntax
 * errors is analysed again with the cursor's line closed.
 */
import { BUILTINS, STD_MODULES } from "@patchwork/interpreter";
import { parse, type TopLevel } from "@patchwork/parser";
import { importSource, type Target } from "./combine.js";
import type { AnalysisDocument } from "./document.js";
import { unitFacts, type Ref, type UnitFacts } from "./facts.js";
import { BUILTIN_DOCS, KEYWORDS } from "./docs.js";
import { builtinSignature, describeDecl } from "./ide.js";
import { modulePath } from "./imports.js";
import { walk } from "./walk.js";
import { workerMemberCompletion } from "./workers.js";

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
