/**
 * What a file offers to run (`patchwork run file.pw [entry] [args…]`, `patchwork list`):
 * its `@skill` / `@command` methods, its functions, workers and skills, and trait methods
 * (`Trait.method`), with signatures and the doc comments above them; and the conversion of
 * command-line arguments (strings) to the declared parameter types.
 */
import type { FunDecl, Program, Span, TypeExpr } from "@patchwork/parser";
import type { Scope } from "./compiler/scope.js";
import { compileType, describeActual, typeToText } from "./types/check.js";
import type { Value } from "./values.js";

export interface EntryParam {
  name: string;
  /** The declared type as source text, or null. */
  type: string | null;
}

export interface EntryInfo {
  /** The name to run it by: a skill/command name, an item name, or `Trait.method`. */
  name: string;
  /** `skill` / `command` (annotated), else the item's flavor (`fun`, `worker`, `skill`, `task`). */
  kind: string;
  /** Where it is declared: the item name or `Trait.method`. */
  target: string;
  params: EntryParam[];
  /** `name(a: string, b: number)`. */
  signature: string;
  /** The comment lines right above it (and its annotations), without their `#` / `//`. */
  doc: string | null;
  line: number;
  decl: FunDecl;
}

const ANNOTATED = new Set(["skill", "command"]);

/** Every entry of a program, skills and commands first, in source order within each group. */
export function listEntries(program: Program, source?: string): EntryInfo[] {
  const lines = source?.split(/\r?\n/);
  const annotated: EntryInfo[] = [];
  const plain: EntryInfo[] = [];
  const add = (decl: FunDecl, target: string) => {
    const note = decl.annotations.find((a) => ANNOTATED.has(a.name));
    const params = decl.params.map((p) => ({ name: p.name, type: p.type ? typeToText(p.type) : null }));
    const name = note ? (note.arg ?? decl.name) : target;
    const info: EntryInfo = {
      name,
      kind: note ? note.name : decl.flavor,
      target,
      params,
      signature: `${name}(${params.map((p) => (p.type ? `${p.name}: ${p.type}` : p.name)).join(", ")})`,
      doc: lines ? docAbove(lines, firstLine(decl)) : null,
      line: decl.span.start.line,
      decl,
    };
    (note ? annotated : plain).push(info);
  };
  for (const item of program.body) {
    if (item.kind === "FunDecl") add(item, item.name);
    else if (item.kind === "TraitDecl") for (const m of item.methods) add(m, `${item.name}.${m.name}`);
  }
  return [...annotated, ...plain];
}

function firstLine(decl: FunDecl): number {
  let line = decl.span.start.line;
  for (const a of decl.annotations) line = Math.min(line, a.span.start.line);
  return line;
}

/** Consecutive comment lines right above line `line` (1-based). */
function docAbove(lines: string[], line: number): string | null {
  const out: string[] = [];
  for (let i = line - 2; i >= 0; i--) {
    const m = /^\s*(?:#|\/\/)\s?(.*)$/.exec(lines[i]!);
    if (!m) break;
    out.unshift(m[1]!.trimEnd());
  }
  return out.length > 0 ? out.join("\n") : null;
}

/**
 * The entry named `name`: an item or `Trait.method` by its own name first, then a
 * skill/command name, then a method name found in exactly one trait. Null when none matches.
 */
export function findEntry(entries: EntryInfo[], name: string): EntryInfo | null {
  return (
    entries.find((e) => e.target === name) ??
    entries.find((e) => e.name === name && ANNOTATED.has(e.kind)) ??
    unique(entries.filter((e) => e.target.endsWith(`.${name}`)))
  );
}

function unique(list: EntryInfo[]): EntryInfo | null {
  return list.length === 1 ? list[0]! : null;
}

/** The default entry of a file with no top-level statements: `__main__`, `main`, else its one skill or command. */
export function defaultEntry(entries: EntryInfo[]): EntryInfo | null {
  const main = entries.find((e) => e.target === "__main__") ?? entries.find((e) => e.target === "main");
  if (main) return main;
  return unique(entries.filter((e) => ANNOTATED.has(e.kind)));
}

/** Command-line arguments of an entry: positional strings and `--arg name=value` pairs. */
export interface EntryArgs {
  positional?: string[];
  named?: Record<string, string>;
}

export type JsonArg = null | boolean | number | string | JsonArg[] | { [key: string]: JsonArg };

/**
 * Converts command-line strings to the entry's parameter types: `number` parses a number,
 * `boolean` takes true/false, `null` takes null, arrays, objects and other non-string types
 * take JSON; `string`, `any` and untyped parameters keep the text. Throws an Error with a
 * message naming the parameter (and the signature) when an argument does not fit.
 */
export function convertArgs(entry: EntryInfo, args: EntryArgs, types: (name: string) => TypeExpr | undefined): JsonArg[] {
  const params = entry.decl.params;
  const positional = args.positional ?? [];
  const named = args.named ?? {};
  if (positional.length > params.length) {
    throw new Error(`${entry.name} takes ${params.length} argument(s), got ${positional.length}: ${entry.signature}`);
  }
  for (const key of Object.keys(named)) {
    const i = params.findIndex((p) => p.name === key);
    if (i < 0) throw new Error(`${entry.name} has no parameter '${key}': ${entry.signature}`);
    if (i < positional.length) throw new Error(`argument '${key}' is given twice (by position and by --arg): ${entry.signature}`);
  }
  const out: JsonArg[] = [];
  const missing: string[] = [];
  params.forEach((p, i) => {
    const text = i < positional.length ? positional[i]! : Object.prototype.hasOwnProperty.call(named, p.name) ? named[p.name]! : undefined;
    if (text === undefined) {
      missing.push(p.name);
      out.push(null);
      return;
    }
    out.push(convertOne(text, p.type, types, `argument '${p.name}'${p.type ? ` (${typeToText(p.type)})` : ""}`));
  });
  if (missing.length > 0) throw new Error(`missing argument(s) ${missing.map((m) => `'${m}'`).join(", ")}: ${entry.signature}`);
  return out;
}

/**
 * Checks arguments given as data (an MCP tool call's) against the entry's parameters: their
 * number, and each against its declared type (untyped parameters take anything; a parameter
 * whose type admits null may be left out). Returns what does not fit, naming the parameter and
 * the signature, at the parameter (or the entry), or null when they fit.
 */
export function checkEntryArgs(entry: EntryInfo, args: Value[], scope: Scope): { detail: string; span: Span } | null {
  const params = entry.decl.params;
  if (args.length > params.length)
    return { detail: `${entry.name} takes ${params.length} argument(s), got ${args.length}: ${entry.signature}`, span: entry.decl.span };
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    const given = i < args.length;
    const v = given ? args[i]! : null;
    if (p.type ? compileType(p.type, scope)(v) : given) continue;
    const expected = p.type ? ` (${typeToText(p.type)})` : "";
    const detail = given
      ? `argument '${p.name}' expects ${typeToText(p.type!)}, got ${describeActual(v)}: ${entry.signature}`
      : `missing argument '${p.name}'${expected}: ${entry.signature}`;
    return { detail, span: p.span };
  }
  return null;
}

function resolveNamed(t: TypeExpr, types: (name: string) => TypeExpr | undefined, depth = 0): TypeExpr {
  if (t.kind === "NamedType" && depth < 50) {
    const found = types(t.name);
    if (found) return resolveNamed(found, types, depth + 1);
  }
  return t;
}

/** The kinds of value a type admits at its top level. */
function kinds(t: TypeExpr, types: (name: string) => TypeExpr | undefined, depth = 0): Set<string> {
  const r = resolveNamed(t, types);
  if (r.kind === "UnionType" && depth < 50) {
    const s = new Set<string>();
    for (const x of r.types) for (const k of kinds(x, types, depth + 1)) s.add(k);
    return s;
  }
  if (r.kind === "NamedType") {
    if (["string", "number", "boolean", "null"].includes(r.name)) return new Set([r.name]);
    if (r.name === "array") return new Set(["json"]);
    if (r.name === "object") return new Set(["json"]);
    return new Set(["any"]);
  }
  if (r.kind === "LiteralType") return new Set(["string"]);
  return new Set(["json"]);
}

function convertOne(text: string, type: TypeExpr | null, types: (name: string) => TypeExpr | undefined, what: string): JsonArg {
  if (!type) return text;
  const k = kinds(type, types);
  if (k.has("any") || k.has("string")) {
    // A string-or-something union takes JSON when the text is JSON of another kind.
    if (k.size > 1 && !k.has("any")) {
      const other = tryJson(text);
      if (other !== undefined && typeof other !== "string" && fits(other, k)) return other;
    }
    return text;
  }
  if (k.has("number")) {
    const n = Number(text);
    if (text.trim() !== "" && Number.isFinite(n)) return n;
  }
  if (k.has("boolean") && (text === "true" || text === "false")) return text === "true";
  if (k.has("null") && text === "null") return null;
  if (k.has("json")) {
    const v = tryJson(text);
    if (v !== undefined && v !== null && typeof v === "object") return v;
    throw new Error(`${what}: expected JSON ${[...k].filter((x) => x !== "json").concat("array or object").join(" or ")}, got ${JSON.stringify(text)}`);
  }
  throw new Error(`${what}: expected ${[...k].join(" or ")}, got ${JSON.stringify(text)}`);
}

function fits(v: JsonArg, k: Set<string>): boolean {
  if (v === null) return k.has("null");
  if (typeof v === "number") return k.has("number");
  if (typeof v === "boolean") return k.has("boolean");
  return k.has("json");
}

function tryJson(text: string): JsonArg | undefined {
  try {
    return JSON.parse(text) as JsonArg;
  } catch {
    return undefined;
  }
}

/**
 * An entry's return value as it is shown after the run, on every host alike (the terminal, the
 * panel, a tool result): nothing for null, a string as is, any other value as pretty JSON (as
 * `cat(v)` prints it).
 */
export function valueText(value: JsonArg | undefined): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/**
 * The whole result of running an entry, as text (docs/decisions/0012-entry-results.md): what it
 * printed (the answers of its statement thinks among it, as they happened), then its return
 * value (`valueText`) on a line of its own.
 */
export function entryResultText(result: { output: string; value: JsonArg | undefined }): string {
  const value = valueText(result.value);
  if (value === "") return result.output;
  const sep = result.output === "" || result.output.endsWith("\n") ? "" : "\n";
  return `${result.output}${sep}${value}\n`;
}
