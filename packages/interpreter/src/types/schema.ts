/**
 * JSON schema of a Patchwork type, built with zod v4 (`z.toJSONSchema`), and validation of
 * think results against it. zod is loaded on first use, so programs without typed thinks
 * do not pay for it at start-up.
 */
import { createRequire } from "node:module";
import type { TypeExpr } from "@patchwork/parser";
import type * as Z from "zod";
import type { Scope } from "../compiler/scope.js";
import type { JsonValue } from "../ports.js";

type ZodMod = typeof Z;
let zod: ZodMod | null = null;

function z(): ZodMod {
  if (!zod) zod = createRequire(import.meta.url)("zod") as ZodMod;
  return zod;
}

/** Builds the zod schema of a type (user type names inlined; recursion cut off as `any`). */
export function toZod(t: TypeExpr, scope: Scope, depth = 0): Z.ZodType {
  const zz = z();
  switch (t.kind) {
    case "NamedType": {
      switch (t.name) {
        case "string":
          return zz.string();
        case "number":
          return zz.number();
        case "boolean":
          return zz.boolean();
        case "null":
          return zz.null();
        case "any":
          return zz.any();
        case "object":
          return zz.record(zz.string(), zz.any());
        case "array":
          return zz.array(zz.any());
      }
      const found = scope.lookupType(t.name);
      if (!found || depth > 8) return zz.any();
      return toZod(found.type, found.scope, depth + 1);
    }
    case "LiteralType":
      return zz.literal(t.value);
    case "ArrayType":
      return zz.array(toZod(t.element, scope, depth));
    case "ObjectType": {
      const shape: Record<string, Z.ZodType> = {};
      for (const f of t.fields) shape[f.key] = toZod(f.type, scope, depth);
      return zz.object(shape);
    }
    case "UnionType": {
      const [a, b, ...rest] = t.types.map((x) => toZod(x, scope, depth));
      return b ? zz.union([a!, b, ...rest]) : a!;
    }
  }
}

export function jsonSchemaOf(schema: Z.ZodType): JsonValue {
  const s = z().toJSONSchema(schema) as Record<string, unknown>;
  delete s.$schema;
  return s as JsonValue;
}

/** Validates JSON data; returns null when it matches, else a one-line description. */
export function validate(schema: Z.ZodType, data: unknown): string | null {
  const r = schema.safeParse(data);
  if (r.success) return null;
  return r.error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}
