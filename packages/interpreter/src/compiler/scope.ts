/**
 * Compile-time scopes. Every variable is resolved once, when its node is compiled, to a
 * slot in a flat frame: the frame of the enclosing function, or the module frame for
 * top-level names. Block scoping (shadowing, redeclaration) is a compile-time matter;
 * at run time a block costs nothing, and no environment object is allocated per block.
 * Frames never outlive their call (functions are top-level items and `do` children run
 * while their think waits), so frame slots can be reused safely across iterations.
 */
import type { TypeExpr } from "@patchwork/parser";
import type { Runtime } from "../runtime.js";
import type { Value } from "../values.js";

/** A function body (or a module's top level) being compiled: owns one frame layout. */
export interface FnCtx {
  size: number;
  isModule: boolean;
  /** Declared return type, used to type a `return think {…}`. */
  returnType: TypeExpr | null;
  returnScope: Scope | null;
}

export interface Binding {
  slot: number;
  fn: FnCtx;
  /** Declared type (checked on assignment), with the scope it was written in. */
  type: TypeExpr | null;
  typeScope: Scope | null;
}

export class Scope {
  private readonly names = new Map<string, Binding>();
  private types: Map<string, TypeExpr> | null = null;
  constructor(
    readonly parent: Scope | null,
    readonly fn: FnCtx,
  ) {}

  lookup(name: string): Binding | undefined {
    for (let s: Scope | null = this; s; s = s.parent) {
      const b = s.names.get(name);
      if (b) return b;
    }
    return undefined;
  }

  hasOwn(name: string): boolean {
    return this.names.has(name);
  }

  /** Declares `name` in this scope with a fresh slot of the enclosing frame. */
  declare(name: string, type: TypeExpr | null = null): Binding {
    const b: Binding = { slot: this.fn.size++, fn: this.fn, type, typeScope: type ? this : null };
    this.names.set(name, b);
    return b;
  }

  declareType(name: string, type: TypeExpr): void {
    (this.types ??= new Map()).set(name, type);
  }

  lookupType(name: string): { type: TypeExpr; scope: Scope } | undefined {
    for (let s: Scope | null = this; s; s = s.parent) {
      const t = s.types?.get(name);
      if (t) return { type: t, scope: s };
    }
    return undefined;
  }
}

/** One loaded module: its file, its frame and its top-level scope. */
export interface ModuleCtx {
  fileName: string;
  /** Directory imports resolve against. */
  dir: string;
  rt: Runtime;
  /** The module frame (top-level variables and items). */
  G: Value[];
  scope: Scope;
  fn: FnCtx;
  /** Exported names (null: the module exports nothing explicitly, so everything is visible). */
  exports: Map<string, Binding> | null;
  defaultExport: Binding | null;
  /** Functions and traits declared by the module (its members when nothing is exported). */
  items: Map<string, Binding>;
  loader: ModuleLoader;
}

export interface ModuleLoader {
  /** Loads (once) and returns the module object of `path` relative to `fromDir`. */
  load(path: string, fromDir: string): ModuleCtx;
  objectOf(mod: ModuleCtx): Map<string, Value>;
}

/** The compile context handed down the tree. */
export interface Cx {
  m: ModuleCtx;
  scope: Scope;
  /** Number of enclosing loops in the current function / child. */
  loops: number;
}

export function childCx(cx: Cx): Cx {
  return { m: cx.m, scope: new Scope(cx.scope, cx.scope.fn), loops: cx.loops };
}
