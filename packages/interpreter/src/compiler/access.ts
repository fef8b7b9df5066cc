/** Member access and indexing: reading and writing. */
import type { IndexExpr, MemberExpr, Node } from "@patchwork/parser";
import { isThinkPrompt, raise, THINK_PROMPT } from "../errors.js";
import { codePointLength, PwOpaque, type PwObject, type Value } from "../values.js";
import { opaqueMember } from "../workers/objects.js";
import { compileExpr, describe } from "./expr.js";
import type { Cx } from "./scope.js";
import type { ExprFn } from "./types.js";

export function getMember(o: Value, key: string, node: Node, file: string): Value {
  if (o instanceof Map) {
    const v = o.get(key);
    return v === undefined ? missingMember(o, key, node, file) : v;
  }
  if (key === "length") {
    if (typeof o === "string") return codePointLength(o);
    if (Array.isArray(o)) return o.length;
  }
  if (o instanceof PwOpaque) {
    const v = opaqueMember(o, key, node, file);
    if (v !== undefined) return v;
  }
  return raise("PW3010", node.span, file, { action: `read member '${key}'`, actual: describe(o) });
}

export function compileMember(e: MemberExpr, cx: Cx): ExprFn {
  const obj = compileExpr(e.object, cx);
  const key = e.property;
  const file = cx.m.fileName;
  return (f) => {
    const o = obj(f);
    if (o instanceof Map) {
      const v = o.get(key);
      return v === undefined ? missingMember(o, key, e, file) : v;
    }
    return getMember(o, key, e, file);
  };
}

/**
 * A missing key reads as null, except on a think's prompt (no agent): `x.a` of a typed think
 * would otherwise be a silent null where the program expects the answer's field.
 */
function missingMember(o: PwObject, key: string, node: Node, file: string): null {
  if (isThinkPrompt(o)) raise("PW3010", node.span, file, { action: `read member '${key}'`, actual: THINK_PROMPT });
  return null;
}

function hasSurrogates(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

export function getIndex(o: Value, i: Value, node: Node, file: string): Value {
  if (Array.isArray(o) && typeof i === "number") {
    const k = i < 0 ? o.length + i : i;
    const v = o[k];
    return v === undefined ? null : v;
  }
  if (o instanceof Map && typeof i === "string") {
    const v = o.get(i);
    return v === undefined ? null : v;
  }
  if (typeof o === "string" && typeof i === "number") {
    const chars = hasSurrogates(o) ? Array.from(o) : null;
    const n = chars ? chars.length : o.length;
    const k = i < 0 ? n + i : i;
    if (!Number.isInteger(k) || k < 0 || k >= n) return null;
    return chars ? chars[k]! : o[k]!;
  }
  return raise("PW3010", node.span, file, { action: `index with ${describe(i)}`, actual: describe(o) });
}

export function compileIndex(e: IndexExpr, cx: Cx): ExprFn {
  const obj = compileExpr(e.object, cx);
  const idx = compileExpr(e.index, cx);
  const file = cx.m.fileName;
  return (f) => {
    const o = obj(f);
    const i = idx(f);
    if (Array.isArray(o) && typeof i === "number" && i >= 0) {
      const v = o[i];
      return v === undefined ? null : v;
    }
    return getIndex(o, i, e, file);
  };
}

export function setMember(o: Value, key: string, v: Value, node: Node, file: string, max: number): void {
  if (o instanceof Map) {
    if (o.size >= max && !o.has(key)) tooManyKeys(o, node, file, max);
    o.set(key, v);
    return;
  }
  raise("PW3010", node.span, file, { action: `set member '${key}'`, actual: describe(o) });
}

function tooManyKeys(o: PwObject, node: Node, file: string, max: number): never {
  return raise("PW3073", node.span, file, { detail: `an object would have ${o.size + 1} entries (the limit is ${max})` });
}

/**
 * `a[i] = v`. An index past the end fills the gap with nulls, up to `max` elements: an index
 * beyond that is PW3073 naming the index and the limit (a billion-element array would
 * exhaust the engine instead).
 */
export function setIndex(o: Value, i: Value, v: Value, node: Node, file: string, max: number): void {
  if (Array.isArray(o) && typeof i === "number" && Number.isInteger(i)) {
    const k = i < 0 ? o.length + i : i;
    if (k < 0) raise("PW3010", node.span, file, { action: `set index ${i}`, actual: `an array of length ${o.length}` });
    if (k >= o.length) {
      if (k >= max) raise("PW3073", node.span, file, { detail: `index ${i} is past the limit of ${max} array elements` });
      while (o.length < k) o.push(null);
    }
    o[k] = v;
    return;
  }
  if (o instanceof Map && typeof i === "string") {
    if (o.size >= max && !o.has(i)) tooManyKeys(o, node, file, max);
    o.set(i, v);
    return;
  }
  const index = typeof i === "number" ? String(i) : typeof i === "string" ? JSON.stringify(i) : describe(i);
  if (typeof o === "string") {
    raise("PW3010", node.span, file, {
      action: `set index ${index}`,
      actual: 'a string: strings cannot be changed in place; build a new one (`s = "z" + s.slice(1)`, or with "${…}")',
    });
  }
  raise("PW3010", node.span, file, { action: `set index ${index}`, actual: describe(o) });
}
