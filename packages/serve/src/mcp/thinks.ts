/**
 * Whether calling an entry may think (issue 35): a think or ask in the entry, in a function or
 * method of its file it names (by name, transitively), in the file's top-level statements
 * (they run before the entry), or anywhere in a file it imports when it names an imported
 * name. Without an agent such a tool's value may hold a think's prompt instead of a value of
 * its declared type, so `patchwork mcp` lists it without an outputSchema then (server.ts).
 * Over-approximate by design: a name that matches is followed whatever it resolves to.
 */
import type { FunDecl, Program } from "@patchwork/parser";

export function entryMayThink(entry: FunDecl, program: Program, imported: Program[]): boolean {
  const funs = new Map<string, FunDecl[]>();
  const add = (f: FunDecl) => funs.set(f.name, [...(funs.get(f.name) ?? []), f]);
  const importedNames = new Set<string>();
  const roots: unknown[] = [entry];
  for (const item of program.body) {
    if (item.kind === "FunDecl") add(item);
    else if (item.kind === "TraitDecl") item.methods.forEach(add);
    else if (item.kind === "Import") for (const n of item.names.length > 0 ? item.names : item.path.slice(-1)) importedNames.add(n);
    else if (item.kind !== "TypeDecl") roots.push(item);
  }
  const importsThink = imported.some(hasThink);
  const seen = new Set<FunDecl>();
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(visit);
    if (node === null || typeof node !== "object") return false;
    const n = node as { kind?: string; name?: string; property?: string };
    if (n.kind === "Think") return true;
    const name = n.kind === "Ident" ? n.name : n.kind === "Member" ? n.property : undefined;
    if (name !== undefined) {
      if (importsThink && importedNames.has(name)) return true;
      for (const f of funs.get(name) ?? []) if (!seen.has(f) && (seen.add(f), visit(f.body))) return true;
    }
    return Object.values(node).some(visit);
  };
  return roots.some((r) => (r === entry ? (seen.add(entry), visit(entry.body)) : visit(r)));
}

/** Whether an AST holds a think or ask block anywhere. */
export function hasThink(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasThink);
  if (node === null || typeof node !== "object") return false;
  if ((node as { kind?: unknown }).kind === "Think") return true;
  return Object.values(node).some(hasThink);
}
