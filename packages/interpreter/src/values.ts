/**
 * Runtime values.
 *
 * | Patchwork | JavaScript representation            |
 * |-----------|---------------------------------------|
 * | null      | `null`                                |
 * | boolean   | `boolean`                             |
 * | number    | `number` (double)                     |
 * | string    | `string`                              |
 * | array     | `Value[]` (mutable)                   |
 * | object    | `Map<string, Value>` (insertion order) |
 * | function  | `PwFunction` (user item) or `PwBuiltin` |
 *
 * A shell expression evaluates to a string (its stdout without trailing newlines);
 * its exit status is `$?`. `undefined` never escapes: it marks a frame slot whose `var`
 * has not run yet.
 */
import type { FunDecl } from "@patchwork/parser";
import type { JsonValue } from "./ports.js";

export type PwObject = Map<string, Value>;
export type Value = null | boolean | number | string | Value[] | PwObject | PwFunction | PwBuiltin | PwOpaque;

/** Compiled form of a user function, filled in on its first call. */
export interface CompiledFunction {
  size: number;
  paramCount: number;
  /** Runs the body with a fresh frame; returns a completion signal. */
  body: (frame: Value[]) => number;
}

/**
 * The resumable form of a user function (compiler/resumable.ts): its body as a generator that
 * yields where it waits (a mailbox receive, an await) instead of blocking its thread.
 */
export interface ResumableFunction {
  size: number;
  paramCount: number;
  body: (frame: Value[]) => Generator<unknown, number, unknown>;
}

/** A user `fun` / `worker` / `skill` / `task` (or a trait method). */
export class PwFunction {
  compiled: CompiledFunction | null = null;
  /** Its resumable form: undefined until first asked for, null when no statement of it can wait. */
  resumable: ResumableFunction | null | undefined = undefined;
  constructor(
    readonly name: string,
    readonly decl: FunDecl,
    /** Compiles the body on first call (closes over the module's scope). */
    readonly compile: (fn: PwFunction) => CompiledFunction,
    /** Compiles the resumable form on first resumable call (null: it has nothing that waits). */
    readonly compileResumable: ((fn: PwFunction) => ResumableFunction | null) | null = null,
  ) {}
}

/**
 * A runtime object of the worker features (a worker, a task, a pending delegation, `self`,
 * the session, a mailbox: see workers/). Opaque to the program: it has members and methods,
 * prints as `<kind …>`, and is never copied into JSON data.
 */
export abstract class PwOpaque {
  /** What `typeof` and error messages call it. */
  abstract readonly typeName: string;
  /** What `print` and interpolation show. */
  abstract text(): string;
}

/** A builtin function used as a value (`var p = print`). */
export class PwBuiltin {
  constructor(readonly name: string) {}
}

export function isObject(v: Value): v is PwObject {
  return v instanceof Map;
}

export function truthy(v: Value): boolean {
  if (v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === "number") return v !== 0 && v === v;
  if (typeof v === "string") return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

export function typeName(v: Value): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
  }
  if (Array.isArray(v)) return "array";
  if (v instanceof Map) return "object";
  if (v instanceof PwOpaque) return v.typeName;
  return "function";
}

export function numberToText(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(n);
}

/** Deepest nesting of arrays and objects that text, JSON and equality walk through. */
export const MAX_NESTING = 1000;

/**
 * Thrown by the walks over a value nested deeper than MAX_NESTING (or containing itself).
 * A RangeError, like the engine's own "too large" errors, so the same sites position it.
 */
export class NestingError extends RangeError {
  constructor() {
    super(`a value nested more than ${MAX_NESTING} levels deep (or one that contains itself)`);
  }
}

function nest(depth: number): number {
  if (depth >= MAX_NESTING) throw new NestingError();
  return depth + 1;
}

/** Text of a value: what `print` and interpolation show. */
export function toText(v: Value): string {
  return textOf(v, 0);
}

function textOf(v: Value, depth: number): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return numberToText(v);
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) {
    const d = nest(depth);
    return v.map((x) => textOf(x, d)).join(", ");
  }
  if (v instanceof Map) return stringifyJson(v, null, depth);
  if (v instanceof PwFunction) return `<${v.decl.flavor} ${v.name}>`;
  if (v instanceof PwOpaque) return v.text();
  return `<builtin ${v.name}>`;
}

/** Deep structural equality without coercion. */
export function deepEqual(a: Value, b: Value, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    const d = nest(depth);
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i]!, b[i]!, d)) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    const d = nest(depth);
    for (const [k, va] of a) {
      const vb = b.get(k);
      if (vb === undefined || !deepEqual(va, vb, d)) return false;
    }
    return true;
  }
  return false;
}

/** Length in Unicode code points. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// ─────────────────────────────────── JSON ───────────────────────────────────

/** Converts a value to JSON data (functions become their text). */
export function toJson(v: Value, depth = 0): JsonValue {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) {
    const d = nest(depth);
    return v.map((x) => toJson(x, d));
  }
  if (v instanceof Map) {
    const d = nest(depth);
    const o: { [key: string]: JsonValue } = {};
    for (const [k, x] of v) o[k] = toJson(x, d);
    return o;
  }
  return toText(v);
}

/** Converts JSON data to a value (objects become insertion-ordered maps). */
export function fromJson(j: unknown): Value {
  if (j === null || j === undefined) return null;
  if (typeof j === "boolean" || typeof j === "number" || typeof j === "string") return j;
  if (Array.isArray(j)) return j.map(fromJson);
  if (j instanceof Map) return j as PwObject;
  if (typeof j === "object") {
    const m: PwObject = new Map();
    for (const k of Object.keys(j as object)) m.set(k, fromJson((j as Record<string, unknown>)[k]));
    return m;
  }
  return null;
}

function quoteJson(s: string): string {
  return JSON.stringify(s);
}

/**
 * JSON text of a value, in insertion order (plain JS objects would put integer-like
 * keys first). `indent` null gives compact text, a number pretty text.
 */
export function stringifyJson(v: Value, indent: number | null, depth = 0): string {
  if (v === null) return "null";
  if (typeof v === "string") return quoteJson(v);
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  nest(depth);
  const nl = indent === null ? "" : "\n" + " ".repeat(indent * (depth + 1));
  const close = indent === null ? "" : "\n" + " ".repeat(indent * depth);
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return "[" + v.map((x) => nl + stringifyJson(x, indent, depth + 1)).join(",") + close + "]";
  }
  if (v instanceof Map) {
    if (v.size === 0) return "{}";
    const sep = indent === null ? ":" : ": ";
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(nl + quoteJson(k) + sep + stringifyJson(x, indent, depth + 1));
    return "{" + parts.join(",") + close + "}";
  }
  return quoteJson(toText(v));
}
