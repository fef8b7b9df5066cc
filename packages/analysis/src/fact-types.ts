/**
 * What name resolution finds in a unit (facts.ts): its declarations, its references (to them
 * or, unresolved, to the module's top level), member references, scopes and imports, and the
 * findings of the checks that need nothing outside it.
 */
import type { ImportDecl } from "@patchwork/parser";
import type { Finding } from "./codes.js";

export type DeclKind =
  | "var"
  | "param"
  | "for"
  | "catch"
  | "fun"
  | "worker"
  | "skill"
  | "task"
  | "trait"
  | "method"
  | "type"
  | "import";

export interface Decl {
  id: number;
  name: string;
  kind: DeclKind;
  /** The name's own range. */
  start: number;
  end: number;
  /** The whole declaration's range (for hover, symbols, folding). */
  nodeStart: number;
  nodeEnd: number;
  /** Declared at module level (visible to other units and, for items, to importers). */
  topLevel: boolean;
  /** Declared type, as written (`var x: string`, a parameter's type). */
  type: string | null;
  /** For functions: `fun name(a: T, b) -> R`. */
  signature: string | null;
  /** For functions: parameter count (arity check). */
  params: number;
  exported: boolean;
  isDefault: boolean;
  /** Local reads (references that are not assignment targets). */
  reads: number;
  /** For imports: the import node's index in `imports`. */
  importIndex: number;
  /** A pattern field with a literal type (`{type: "done"}`): written to check the value, so never "unused". */
  checks?: boolean;
}

export interface Ref {
  name: string;
  start: number;
  end: number;
  /** A declaration of this unit (index into `decls`), or -1: resolved at module level. */
  decl: number;
  /** Where an unresolved ref sits: top-level code (sees earlier top-level vars) or a function. */
  inFunction: boolean;
  /** The worker whose body it is in (a worker task does not see the top-level variables), else null. */
  inWorker?: string | null;
  /** `$name` in a shell word: falls back to the environment, never an error. */
  optional: boolean;
  /** An assignment target, not a read. */
  write: boolean;
  /** The whole expression of a `${…}` in a prompt or string. */
  interpolated: boolean;
  /** Argument count when this name is called: `name(a, b)`. */
  argc: number;
  /** The call's range, for arity diagnostics. */
  callStart: number;
  callEnd: number;
}

/** `name.member` where `name` is a plain name (a module object's export, an object's key). */
export interface MemberRef {
  /** The `name` part: an index into `refs`. */
  object: number;
  member: string;
  /** The member's own range. */
  start: number;
  end: number;
}

/** A lexical scope: for completion (names visible at an offset). */
export interface ScopeRange {
  start: number;
  end: number;
  decls: number[];
}

export interface UnitFacts {
  decls: Decl[];
  refs: Ref[];
  scopes: ScopeRange[];
  imports: ImportDecl[];
  members: MemberRef[];
  findings: Finding[];
}
