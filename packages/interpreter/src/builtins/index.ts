/** The builtin table: every family merged, looked up by name. */
import { PwBuiltin } from "../values.js";
import { coreBuiltins } from "./core.js";
import { ioBuiltins } from "./io.js";
import type { BuiltinDef } from "./types.js";

export const BUILTINS: Readonly<Record<string, BuiltinDef>> = { ...coreBuiltins, ...ioBuiltins };

/** Builtin modules for `import std.NAME`: the names they provide. */
export const STD_MODULES: Readonly<Record<string, string[]>> = {
  log: ["log"],
  io: ["read", "write", "exists", "env", "print"],
  json: ["json", "cat"],
};

const values = new Map<string, PwBuiltin>();

export function isBuiltinName(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(BUILTINS, name);
}

export function builtinValue(name: string): PwBuiltin {
  let v = values.get(name);
  if (!v) values.set(name, (v = new PwBuiltin(name)));
  return v;
}
