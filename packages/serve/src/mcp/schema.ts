/**
 * JSON Schemas of an entry's parameters and return value, for an MCP tool's `inputSchema` and
 * `outputSchema` (docs/decisions/0014-mcp-server.md): `string`, `number`, `boolean`, `null`,
 * arrays, objects (extra keys allowed, as the language's `{k: T}` allows them), unions of
 * string literals → `enum`, other unions → `anyOf`, `type X = …` of the file resolved;
 * untyped parameters are strings; other names (traits, imported types) and `any` take anything.
 */
import type { EntryInfo } from "@patchwork/interpreter";
import type { Program, TypeExpr } from "@patchwork/parser";

export type JsonSchema = { [key: string]: unknown };

/** Resolves the file's `type X = …` declarations by name. */
export type TypeLookup = (name: string) => TypeExpr | undefined;

export function typeLookup(program: Program): TypeLookup {
  const types = new Map<string, TypeExpr>();
  for (const item of program.body) if (item.kind === "TypeDecl") types.set(item.name, item.type);
  return (name) => types.get(name);
}

/** The schema of a type; `depth` cuts recursive type names off (as `any`). */
export function typeSchema(t: TypeExpr, types: TypeLookup, depth = 0): JsonSchema {
  switch (t.kind) {
    case "NamedType":
      return namedSchema(t.name, types, depth);
    case "LiteralType":
      return { type: "string", enum: [t.value] };
    case "ArrayType":
      return { type: "array", items: typeSchema(t.element, types, depth) };
    case "ObjectType": {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const f of t.fields) {
        properties[f.key] = typeSchema(f.type, types, depth);
        if (!admitsNull(f.type, types)) required.push(f.key);
      }
      return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
    }
    case "UnionType": {
      const members = t.types.map((x) => typeSchema(x, types, depth));
      const literals = members.every((m) => m.type === "string" && Array.isArray(m.enum));
      if (literals) return { type: "string", enum: [...new Set(members.flatMap((m) => m.enum as string[]))] };
      return { anyOf: members };
    }
  }
}

function namedSchema(name: string, types: TypeLookup, depth: number): JsonSchema {
  switch (name) {
    case "string":
    case "number":
    case "boolean":
    case "null":
    case "object":
    case "array":
      return { type: name };
    case "any":
      return {};
  }
  const found = types(name);
  return found && depth < 8 ? typeSchema(found, types, depth + 1) : {};
}

/** True when `null` is a value of the type (then a parameter or field of it may be left out). */
export function admitsNull(t: TypeExpr, types: TypeLookup, depth = 0): boolean {
  if (t.kind === "UnionType") return t.types.some((x) => admitsNull(x, types, depth));
  if (t.kind !== "NamedType") return false;
  if (t.name === "null" || t.name === "any") return true;
  const found = types(t.name);
  return found !== undefined && depth < 8 && admitsNull(found, types, depth + 1);
}

/**
 * `inputSchema`: one property per parameter (with its `description` from the doc comment's
 * `@param` lines, where given); required unless its type admits null.
 */
export function inputSchema(entry: EntryInfo, types: TypeLookup, descriptions: Record<string, string> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of entry.decl.params) {
    const schema = p.type ? typeSchema(p.type, types) : { type: "string" };
    properties[p.name] = descriptions[p.name] ? { ...schema, description: descriptions[p.name] } : schema;
    if (!p.type || !admitsNull(p.type, types)) required.push(p.name);
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * `outputSchema` of an entry with a declared return type, and how its value becomes
 * `structuredContent`: an object type as it is; any other type wrapped as `{value: …}` (MCP
 * requires an object there). Null when the entry declares no return type.
 */
export function outputSchema(entry: EntryInfo, types: TypeLookup): { schema: JsonSchema; wrapped: boolean } | null {
  const t = entry.decl.returnType;
  if (!t) return null;
  const schema = typeSchema(t, types);
  if (schema.type === "object") return { schema, wrapped: false };
  return { schema: { type: "object", properties: { value: schema }, required: ["value"] }, wrapped: true };
}
