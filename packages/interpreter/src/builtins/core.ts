/** Core builtins: output, conversion, inspection. */
import { raise } from "../errors.js";
import { JsonSyntaxError, JsonTooLargeError, parseJson } from "../json.js";
import { codePointLength, stringifyJson, toText, typeName, type Value } from "../values.js";
import type { BuiltinDef, CallSite } from "./types.js";

function describeArg(v: Value): string {
  return typeName(v);
}

function joinArgs(args: Value[]): string {
  let s = "";
  for (let i = 0; i < args.length; i++) s += (i ? " " : "") + toText(args[i]!);
  return s;
}

export const coreBuiltins: Record<string, BuiltinDef> = {
  print: {
    min: 0,
    max: Infinity,
    fn: (args, site) => {
      const text = joinArgs(args) + "\n";
      site.rt.write(text);
      if (site.rt.events) site.rt.emit({ type: "print", text });
      return null;
    },
  },
  log: {
    min: 0,
    max: Infinity,
    fn: (args, site) => {
      const text = joinArgs(args) + "\n";
      site.rt.log(text);
      if (site.rt.events) site.rt.emit({ type: "log", text });
      return null;
    },
  },
  cat: { min: 1, max: 1, fn: (args) => stringifyJson(args[0]!, 2) },
  json: {
    min: 1,
    max: 1,
    fn: (args, site) => {
      const v = args[0]!;
      if (typeof v !== "string") return stringifyJson(v, null);
      site.charge(v.length);
      try {
        return parseJson(v, site.rt.maxArrayLength);
      } catch (e) {
        if (e instanceof JsonSyntaxError) return raise("PW3022", site.span, site.file, { detail: e.message });
        if (e instanceof JsonTooLargeError) return raise("PW3073", site.span, site.file, { detail: e.message });
        throw e;
      }
    },
  },
  len: {
    min: 1,
    max: 1,
    fn: (args, site) => {
      const v = args[0]!;
      if (typeof v === "string") return codePointLength(v);
      if (Array.isArray(v)) return v.length;
      if (v instanceof Map) return v.size;
      return site.fail(`expects a string, array or object, got ${describeArg(v)}`);
    },
  },
  keys: {
    min: 1,
    max: 1,
    fn: (args, site) => {
      const v = args[0]!;
      if (v instanceof Map) return [...v.keys()];
      if (Array.isArray(v)) return v.map((_, i) => i);
      return site.fail(`expects an object, got ${describeArg(v)}`);
    },
  },
  values: {
    min: 1,
    max: 1,
    fn: (args, site) => {
      const v = args[0]!;
      if (v instanceof Map) return [...v.values()];
      if (Array.isArray(v)) return v.slice();
      return site.fail(`expects an object, got ${describeArg(v)}`);
    },
  },
  typeof: { min: 1, max: 1, fn: (args) => typeName(args[0]!) },
};

export function needString(v: Value, what: string, site: CallSite): string {
  if (typeof v !== "string") return site.fail(`${what} must be a string, got ${typeName(v)}`);
  return v;
}
