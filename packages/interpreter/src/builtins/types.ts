/** The shape of builtin functions and methods: a table entry, arity checked once by the caller. */
import type { Node, Span } from "@patchwork/parser";
import { raise } from "../errors.js";
import type { Runtime } from "../runtime.js";
import type { Value } from "../values.js";

/** Where a builtin is called from: for output, paths and errors. */
export class CallSite {
  /** The calling node (for limit checks); a node-like holder of the span when not given. */
  readonly node: Node;
  constructor(
    readonly rt: Runtime,
    readonly file: string,
    readonly span: Span,
    readonly name: string,
    node?: Node,
  ) {
    this.node = node ?? ({ span } as Node);
  }

  /**
   * Runs `fn(arg)`, turning an engine RangeError (a string or array past the engine's
   * maximum, a stack overflow) into the positioned runtime error.
   */
  guard<A, R>(fn: (arg: A) => R, arg: A): R {
    try {
      return fn(arg);
    } catch (e) {
      if (e instanceof RangeError) throw this.rt.fromRangeError(e, this.span, this.file);
      throw e;
    }
  }

  /** PW3073 unless an array of `length` elements fits the array limit. */
  checkArray(length: number, what = `the result of ${this.name}()`): void {
    this.rt.checkArrayLength(length, what, this.span, this.file);
  }

  /** PW3073 unless a string of `length` code units fits the string limit. */
  checkString(length: number, what = `the result of ${this.name}()`): void {
    this.rt.checkStringLength(length, what, this.span, this.file);
  }

  /** Charges builtin work of `units` elements or characters (step budget, clock). */
  charge(units: number): void {
    this.rt.charge(units, this.node, this.file);
  }

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
