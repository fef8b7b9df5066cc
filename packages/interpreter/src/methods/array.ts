/** Array methods. `includes` and `indexOf` use deep equality. */
import type { CallSite, MethodDef } from "../builtins/types.js";
import { deepEqual, toText, typeName, type Value } from "../values.js";

function m(min: number, max: number, fn: (a: Value[], args: Value[], site: CallSite) => Value): MethodDef {
  return { min, max, fn: fn as MethodDef["fn"] };
}

function num(v: Value | undefined, what: string, site: CallSite): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") return site.fail(`${what} must be a number, got ${typeName(v)}`);
  return v;
}

function indexOf(a: Value[], x: Value): number {
  for (let i = 0; i < a.length; i++) if (deepEqual(a[i]!, x)) return i;
  return -1;
}

export const arrayMethods: Record<string, MethodDef> = {
  /** Appends its arguments; returns the new length. */
  push: m(1, Infinity, (a, args) => a.push(...args)),
  pop: m(0, 0, (a) => (a.length ? a.pop()! : null)),
  includes: m(1, 1, (a, args) => indexOf(a, args[0]!) >= 0),
  indexOf: m(1, 1, (a, args) => indexOf(a, args[0]!)),
  join: m(0, 1, (a, args, site) => {
    const sep = args.length ? args[0]! : ",";
    if (typeof sep !== "string") return site.fail(`the separator must be a string, got ${typeName(sep)}`);
    return a.map(toText).join(sep);
  }),
  slice: m(0, 2, (a, args, site) => a.slice(num(args[0], "the start", site), num(args[1], "the end", site))),
};
