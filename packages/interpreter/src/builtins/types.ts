/** The shape of builtin functions and methods: a table entry, arity checked once by the caller. */
import type { Span } from "@patchwork/parser";
import { raise } from "../errors.js";
import type { Runtime } from "../runtime.js";
import type { Value } from "../values.js";

/** Where a builtin is called from: for output, paths and errors. */
export class CallSite {
  constructor(
    readonly rt: Runtime,
    readonly file: string,
    readonly span: Span,
    readonly name: string,
  ) {}

  /** Raise an error naming the builtin (PW3008). */
  fail(detail: string): never {
    return raise("PW3008", this.span, this.file, { name: this.name, detail });
  }
}

export interface BuiltinDef {
  min: number;
  max: number;
  fn: (args: Value[], site: CallSite) => Value;
}

export interface MethodDef {
  min: number;
  max: number;
  fn: (recv: never, args: Value[], site: CallSite) => Value;
}

export function arityText(min: number, max: number): string {
  if (min === max) return String(min);
  if (max === Infinity) return `at least ${min}`;
  return `${min} to ${max}`;
}
