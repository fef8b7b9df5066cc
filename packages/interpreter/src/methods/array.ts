/**
 * Array methods. `includes` and `indexOf` use deep equality. Methods that grow an array or
 * build text check the size limits first and charge their work to the step budget.
 */
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

function indexOf(a: Value[], x: Value, site: CallSite): number {
  site.charge(a.length);
  for (let i = 0; i < a.length; i++) if (deepEqual(a[i]!, x)) return i;
  return -1;
}

/** The elements as text joined by `sep`, within the string limit. */
function join(a: Value[], sep: string, site: CallSite): string {
  site.charge(a.length);
  const parts = a.map(toText);
  let n = sep.length * Math.max(a.length - 1, 0);
  for (let i = 0; i < parts.length; i++) n += parts[i]!.length;
  site.checkString(n);
  return parts.join(sep);
}

/** Code point order (JS `<` on strings compares UTF-16 units, which differs for astral characters). */
function compareCodePoints(x: string, y: string): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const a = x.codePointAt(i)!;
    const b = y.codePointAt(i)!;
    if (a !== b) return a - b;
    if (a > 0xffff) i++;
  }
  return x.length - y.length;
}

/** Sorts in place: all numbers numerically, all strings by code point; the clock is checked while sorting. */
function sort(a: Value[], site: CallSite): Value[] {
  const numbers = a.every((x) => typeof x === "number");
  if (!numbers && !a.every((x) => typeof x === "string"))
    return site.fail("can only sort an array of numbers or an array of strings");
  let compares = 0;
  const tick = () => {
    if (++compares === 1024) {
      compares = 0;
      site.charge(1024);
    }
  };
  if (numbers) a.sort((x, y) => (tick(), (x as number) - (y as number)));
  else a.sort((x, y) => (tick(), compareCodePoints(x as string, y as string)));
  return a;
}

export const arrayMethods: Record<string, MethodDef> = {
  /** Appends its arguments; returns the new length. */
  push: m(1, Infinity, (a, args, site) => {
    site.checkArray(a.length + args.length, "the array");
    return a.push(...args);
  }),
  pop: m(0, 0, (a) => (a.length ? a.pop()! : null)),
  includes: m(1, 1, (a, args, site) => indexOf(a, args[0]!, site) >= 0),
  indexOf: m(1, 1, (a, args, site) => indexOf(a, args[0]!, site)),
  lastIndexOf: m(1, 1, (a, args, site) => {
    site.charge(a.length);
    for (let i = a.length - 1; i >= 0; i--) if (deepEqual(a[i]!, args[0]!)) return i;
    return -1;
  }),
  /** A new array: the elements, then each argument's elements (an argument that is not an array is one element). */
  concat: m(0, Infinity, (a, args, site) => {
    let n = a.length;
    for (const x of args) n += Array.isArray(x) ? x.length : 1;
    site.checkArray(n, "the array");
    site.charge(n);
    return a.concat(...args.map((x) => (Array.isArray(x) ? x : [x])));
  }),
  /** Reverses in place and returns the array. */
  reverse: m(0, 0, (a, _args, site) => {
    site.charge(a.length);
    return a.reverse();
  }),
  join: m(0, 1, (a, args, site) => {
    const sep = args.length ? args[0]! : ",";
    if (typeof sep !== "string") return site.fail(`the separator must be a string, got ${typeName(sep)}`);
    return join(a, sep, site);
  }),
  slice: m(0, 2, (a, args, site) => a.slice(num(args[0], "the start", site), num(args[1], "the end", site))),
  sort: m(0, 0, (a, _args, site) => sort(a, site)),
};
