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
  number: {
    min: 1,
    max: 1,
    fn: (args, site) => {
      const v = args[0]!;
      if (typeof v === "number") return v;
      if (typeof v !== "string") return site.fail(`expects text (a string), got ${describeArg(v)}`);
      const n = parseNumberText(v);
      if (n === undefined) return raise("PW3023", site.span, site.file, { text: quoteForMessage(v) });
      return n;
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

/** A decimal or JSON number (`42`, `-3.5`, `.5`, `1e3`, `+2`), surrounding whitespace allowed; else undefined. */
export function parseNumberText(text: string): number | undefined {
  const t = text.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/** The text as a JSON string for a message, cut to 60 characters. */
function quoteForMessage(text: string): string {
  const cut = text.length > 60 ? text.slice(0, 60) + "…" : text;
  return JSON.stringify(cut);
}

export function needString(v: Value, what: string, site: CallSite): string {
  if (typeof v !== "string") return site.fail(`${what} must be a string, got ${typeName(v)}`);
  return v;
}
