/**
 * Run-time type checks (language.md §7): `string number boolean null any`, string
 * literals, `[T]`, `{k: T}` (extra keys allowed, a missing key reads as null), unions,
 * and names from `type X = …`; other names (traits, imports) mean `any`.
 */
import type { Span, TypeExpr } from "@patchwork/parser";
import { isThinkPrompt, raise } from "../errors.js";
import type { Scope } from "../compiler/scope.js";
import { typeName, type Value } from "../values.js";

export type TypePred = (v: Value) => boolean;

const BASIC: Record<string, TypePred> = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean",
  null: (v) => v === null,
  any: () => true,
  object: (v) => v instanceof Map,
  array: (v) => Array.isArray(v),
};

/**
 * Compiles a type into a predicate, resolving names in `scope` once. With `thinkPrompts`, a
 * think's placeholder without an agent (`{__think_prompt}`) passes as any type, wherever it is
 * in the value: the rule where a value crosses a boundary (language.md §7, docs/mcp.md).
 */
export function compileType(t: TypeExpr, scope: Scope, seen: Map<string, TypePred> = new Map(), thinkPrompts = false): TypePred {
  const pred = compileStrict(t, scope, seen, thinkPrompts);
  return thinkPrompts ? (v) => isThinkPrompt(v) || pred(v) : pred;
}

function compileStrict(t: TypeExpr, scope: Scope, seen: Map<string, TypePred>, thinkPrompts: boolean): TypePred {
  const compile = (x: TypeExpr, s: Scope) => compileType(x, s, seen, thinkPrompts);
  switch (t.kind) {
    case "NamedType": {
      const basic = BASIC[t.name];
      if (basic) return basic;
      const found = scope.lookupType(t.name);
      if (!found) return BASIC.any!;
      const memo = seen.get(t.name);
      if (memo) return memo;
      let inner: TypePred | null = null;
      const lazy: TypePred = (v) => (inner ??= compile(found.type, found.scope))(v);
      seen.set(t.name, lazy);
      return lazy;
    }
    case "LiteralType": {
      const s = t.value;
      return (v) => v === s;
    }
    case "ArrayType": {
      const el = compile(t.element, scope);
      return (v) => Array.isArray(v) && v.every(el);
    }
    case "ObjectType": {
      const fields = t.fields.map((f) => [f.key, compile(f.type, scope)] as const);
      return (v) => {
        if (!(v instanceof Map)) return false;
        for (const [k, p] of fields) {
          const x = v.get(k);
          if (!p(x === undefined ? null : x)) return false;
        }
        return true;
      };
    }
    case "UnionType": {
      const ps = t.types.map((x) => compile(x, scope));
      return (v) => ps.some((p) => p(v));
    }
  }
}

/** Source-like text of a type: `string`, `[number]`, `{name: string}`, `"a" | "b"`. */
export function typeToText(t: TypeExpr): string {
  switch (t.kind) {
    case "NamedType":
      return t.name;
    case "LiteralType":
      return JSON.stringify(t.value);
    case "ArrayType":
      return `[${typeToText(t.element)}]`;
    case "ObjectType":
      return `{${t.fields.map((f) => `${f.key}: ${typeToText(f.type)}`).join(", ")}}`;
    case "UnionType":
      return t.types.map(typeToText).join(" | ");
  }
}

export function describeActual(v: Value): string {
  if (typeof v === "string") return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  return typeName(v);
}

/**
 * A checker that raises PW3004 naming what was checked, the expected and the actual type.
 * `thinkPrompts`: a no-agent think's placeholder passes (compileType).
 */
export function checkAssignable(t: TypeExpr, scope: Scope, what: string, span: Span, file: string, thinkPrompts = false): (v: Value) => void {
  const pred = compileType(t, scope, new Map(), thinkPrompts);
  const expected = typeToText(t);
  return (v) => {
    if (!pred(v)) {
      const where = mismatchDetail(t, scope, v, thinkPrompts);
      raise("PW3004", span, file, { what, expected, actual: describeActual(v) + (where ? `: ${where}` : "") });
    }
  };
}

const article = (name: string): string => (/^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`);

/**
 * Where in `v` a value that does not fit `t` goes wrong, for the message (only computed then):
 * `field 'y' is missing`, `field 'y' is a string, not number`, else the path as code writes it,
 * `at [1]: a number, not string`, `at pts[1].y: missing`; null when the mismatch is `v` itself
 * (a number where a string goes) or inside a union.
 */
export function mismatchDetail(t: TypeExpr, scope: Scope, v: Value, thinkPrompts = false): string | null {
  const found = mismatchAt(t, scope, v, thinkPrompts, 0);
  if (!found) return null;
  const { path, problem } = found;
  if (path.length === 1 && !path[0]!.startsWith("[")) return `field '${path[0]}' is ${problem}`;
  return `at ${path.map((p, i) => (p.startsWith("[") || i === 0 ? p : `.${p}`)).join("")}: ${problem}`;
}

function mismatchAt(t: TypeExpr, scope: Scope, v: Value, thinkPrompts: boolean, depth: number): { path: string[]; problem: string } | null {
  if (depth > 16) return null;
  const fits = (x: TypeExpr, s: Scope, y: Value) => compileType(x, s, new Map(), thinkPrompts)(y);
  const inner = (x: TypeExpr, y: Value, step: string) => {
    const deeper = mismatchAt(x, scope, y, thinkPrompts, depth + 1);
    return deeper ? { path: [step, ...deeper.path], problem: deeper.problem } : { path: [step], problem: `${article(typeName(y))}, not ${typeToText(x)}` };
  };
  switch (t.kind) {
    case "NamedType": {
      if (BASIC[t.name]) return null;
      const found = scope.lookupType(t.name);
      return found ? mismatchAt(found.type, found.scope, v, thinkPrompts, depth + 1) : null;
    }
    case "ArrayType": {
      if (!Array.isArray(v)) return null;
      const i = v.findIndex((x) => !fits(t.element, scope, x));
      return i < 0 ? null : inner(t.element, v[i]!, `[${i}]`);
    }
    case "ObjectType": {
      if (!(v instanceof Map)) return null;
      for (const f of t.fields) {
        const x = v.has(f.key) ? v.get(f.key)! : null;
        if (fits(f.type, scope, x)) continue;
        return v.has(f.key) ? inner(f.type, x, f.key) : { path: [f.key], problem: "missing" };
      }
      return null;
    }
    default:
      return null;
  }
}

/** True when a type is `string` (or absent): the think result is the reply text. */
export function isStringType(t: TypeExpr | null, scope: Scope | null): boolean {
  if (!t) return true;
  if (t.kind !== "NamedType") return false;
  if (t.name === "string") return true;
  const found = scope?.lookupType(t.name);
  return found ? isStringType(found.type, found.scope) : false;
}
