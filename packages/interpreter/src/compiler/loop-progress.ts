/**
 * Progress events of loops (`loop-start`, `loop-item`, `loop-end`: docs/trace.md). Made
 * only when the host listens (`rt.events`): the loop compilers pick a loop without them
 * otherwise, so a run nobody watches pays nothing. A loop's items are named by short labels
 * (at most `MAX_LABELS`, each at most `LABEL_LENGTH` characters, made without printing a large
 * value whole).
 */
import type { ForStmt, WhileStmt } from "@patchwork/parser";
import type { Runtime } from "../runtime.js";
import { numberToText, PwFunction, PwOpaque, type Value } from "../values.js";

export const MAX_LABELS = 200;
export const LABEL_LENGTH = 60;
/** Most milliseconds between two `loop-item` events told (loopItem). */
export const ITEM_MS = 50;

/**
 * Emits `loop-start`; returns the loop's number for its other events. A `while` loop has no
 * variable (""), no items and no total (null).
 */
export function loopStart(rt: Runtime, s: ForStmt | WhileStmt, fileName: string, items: Value[] | null, total: number | null): number {
  const loop = ++rt.loopCounter;
  if (s.kind === "While") {
    rt.emit({ type: "loop-start", loop, fileName, span: s.span, variable: "", total: null });
    return loop;
  }
  const labels: string[] = [];
  for (let i = 0; items && i < items.length && i < MAX_LABELS; i++) labels.push(shortLabel(items[i]!));
  rt.emit({ type: "loop-start", loop, fileName, span: s.span, variable: s.name, total, labels });
  return loop;
}

/**
 * Item `index` of the loop starts. A loop's first item is told at once, the others at most
 * every `ITEM_MS` (a host wants where a loop is, not an event per item: a long loop would pay
 * more for its events than for its work). An item not told waits in the runtime and goes out
 * before the next event of any other kind (so a think or a print inside it follows its item),
 * or is dropped when a later item or its loop's end makes it stale. The clock is read every
 * `itemEvery` items (reading it costs about as much as a fast item here), a number that grows
 * while items are fast and shrinks when they are slow.
 */
export function loopItem(rt: Runtime, loop: number, index: number): void {
  if (index === 0) {
    rt.heldLoop = 0;
    rt.host.event!({ type: "loop-item", loop, index });
    return;
  }
  rt.heldLoop = loop;
  rt.heldIndex = index;
  if (--rt.itemCheck > 0) return;
  const now = Date.now();
  const since = now - rt.checkAt;
  rt.checkAt = now;
  rt.itemEvery = since < 5 ? Math.min(rt.itemEvery * 2, 4096) : since > 20 ? Math.max(1, rt.itemEvery >> 1) : rt.itemEvery;
  rt.itemCheck = rt.itemEvery;
  if (now - rt.itemAt < ITEM_MS) return;
  rt.itemAt = now;
  rt.heldLoop = 0;
  rt.host.event!({ type: "loop-item", loop, index });
}

export function loopEnd(rt: Runtime, loop: number, ok: boolean, done: number): void {
  rt.emit({ type: "loop-end", loop, ok, done });
}

class Full extends Error {}

/** A value as one short line (a string as it is, strings inside values quoted), cut at `max` characters (… at the cut). */
export function shortLabel(v: Value, max = LABEL_LENGTH): string {
  let out = "";
  const put = (text: string) => {
    out += text;
    if (out.length > max) throw new Full();
  };
  const walk = (x: Value, depth: number): void => {
    if (typeof x === "string") put(depth === 0 ? x : JSON.stringify(x));
    else if (typeof x === "number") put(numberToText(x));
    else if (x === null || typeof x === "boolean") put(String(x));
    else if (Array.isArray(x)) {
      if (depth > 0) put("[");
      x.forEach((y, i) => (i > 0 && put(", "), walk(y, depth + 1)));
      if (depth > 0) put("]");
    } else if (x instanceof Map) {
      put("{");
      let first = true;
      for (const [k, y] of x) {
        put(`${first ? "" : ", "}${k}: `);
        first = false;
        walk(y, depth + 1);
      }
      put("}");
    } else if (x instanceof PwFunction) put(`<${x.decl.flavor} ${x.name}>`);
    else if (x instanceof PwOpaque) put(x.text());
    else put(`<builtin ${x.name}>`);
  };
  try {
    walk(v, 0);
  } catch (e) {
    if (!(e instanceof Full)) throw e;
    out = out.slice(0, max - 1) + "…";
  }
  return out.replace(/\s+/g, " ").trim();
}

/** The first items of a range `a...b` (those that get labels). */
export function rangeItems(a: number, b: number): Value[] {
  const items: Value[] = [];
  for (let i = a; i <= b && items.length < MAX_LABELS; i++) items.push(i);
  return items;
}
