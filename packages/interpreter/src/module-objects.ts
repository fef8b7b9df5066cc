/**
 * What a module object (`import lib from "./lib.pw"`) leaves out: the items its file declares
 * without `export` (when it exports some), so that calling one says it is not exported (PW3009)
 * instead of that the object has no such method.
 */
import { basename } from "node:path";
import type { PwObject } from "./values.js";

const hidden = new WeakMap<PwObject, { file: string; names: ReadonlySet<string> }>();

export function markUnexported(obj: PwObject, file: string, names: Iterable<string>): void {
  const set = new Set(names);
  if (set.size > 0) hidden.set(obj, { file, names: set });
}

/** The hint for `obj.name(…)` when `name` is an item of the module that is not exported; "" otherwise. */
export function unexportedHint(obj: PwObject, name: string): string {
  const h = hidden.get(obj);
  if (!h?.names.has(name)) return "";
  return `'${name}' is not exported by ${basename(h.file)}: declare it \`export fun ${name}(…)\` there to use it from another file`;
}
