/**
 * The document IR of the formatter (Wadler's "prettier printer", as Prettier uses it):
 * text, line breaks that a group may keep flat, indentation, and verbatim source text.
 * `render` lays a doc out at a width: a group is printed flat when it fits on the rest of the
 * line and contains no hard break, else its lines break.
 */

export type Doc =
  | string
  | { t: "concat"; parts: Doc[] }
  | { t: "line"; flat: string; hard: boolean }
  | { t: "group"; doc: Doc }
  | { t: "indent"; doc: Doc }
  | { t: "verbatim"; text: string };

export const concat = (...parts: Doc[]): Doc => ({ t: "concat", parts });
/** A space when flat, a newline when broken. */
export const line: Doc = { t: "line", flat: " ", hard: false };
/** Nothing when flat, a newline when broken. */
export const softline: Doc = { t: "line", flat: "", hard: false };
/** Always a newline. */
export const hardline: Doc = { t: "line", flat: "", hard: true };
export const group = (doc: Doc): Doc => ({ t: "group", doc });
export const indent = (doc: Doc): Doc => ({ t: "indent", doc });
/** Source text printed exactly as written (its own newlines are not re-indented). */
export const verbatim = (text: string): Doc => ({ t: "verbatim", text });

export function join(sep: Doc, docs: readonly Doc[]): Doc {
  const parts: Doc[] = [];
  docs.forEach((d, i) => {
    if (i > 0) parts.push(sep);
    parts.push(d);
  });
  return concat(...parts);
}

/** Whether a doc must break (holds a hard line or multi-line verbatim text). */
function hasHard(doc: Doc, memo: WeakMap<object, boolean>): boolean {
  if (typeof doc === "string") return false;
  const known = memo.get(doc);
  if (known !== undefined) return known;
  let r: boolean;
  switch (doc.t) {
    case "concat":
      r = doc.parts.some((p) => hasHard(p, memo));
      break;
    case "line":
      r = doc.hard;
      break;
    case "verbatim":
      r = doc.text.includes("\n");
      break;
    default:
      r = hasHard(doc.doc, memo);
  }
  memo.set(doc, r);
  return r;
}

interface Frame {
  ind: number;
  flat: boolean;
  doc: Doc;
}

/** Width of `doc` printed flat, or Infinity when it cannot be flat. */
function flatWidth(doc: Doc, budget: number): number {
  let w = 0;
  const stack: Doc[] = [doc];
  while (stack.length > 0 && w <= budget) {
    const d = stack.pop()!;
    if (typeof d === "string") w += d.length;
    else if (d.t === "concat") for (let i = d.parts.length - 1; i >= 0; i--) stack.push(d.parts[i]!);
    else if (d.t === "line") {
      if (d.hard) return Infinity;
      w += d.flat.length;
    } else if (d.t === "verbatim") {
      if (d.text.includes("\n")) return Infinity;
      w += d.text.length;
    } else stack.push(d.doc);
  }
  return w;
}

export function render(doc: Doc, width = 100, indentUnit = "    "): string {
  const memo = new WeakMap<object, boolean>();
  let out = "";
  let col = 0;
  // Spaces and indentation are held back until something follows them on the line, so no
  // line ends in whitespace the printer added.
  let pending = "";
  const emit = (s: string): void => {
    out += pending + s;
    pending = "";
  };
  const stack: Frame[] = [{ ind: 0, flat: false, doc }];
  while (stack.length > 0) {
    const { ind, flat, doc: d } = stack.pop()!;
    if (typeof d === "string") {
      if (d.length > 0) emit(d);
      col += d.length;
      continue;
    }
    switch (d.t) {
      case "concat":
        for (let i = d.parts.length - 1; i >= 0; i--) stack.push({ ind, flat, doc: d.parts[i]! });
        break;
      case "indent":
        stack.push({ ind: ind + 1, flat, doc: d.doc });
        break;
      case "group": {
        const fits = flat || (!hasHard(d.doc, memo) && col + flatWidth(d.doc, width - col) <= width);
        stack.push({ ind, flat: fits, doc: d.doc });
        break;
      }
      case "line":
        if (flat && !d.hard) {
          pending += d.flat;
          col += d.flat.length;
        } else {
          out += "\n";
          pending = indentUnit.repeat(ind);
          col = pending.length;
        }
        break;
      case "verbatim": {
        emit(d.text);
        const nl = d.text.lastIndexOf("\n");
        col = nl < 0 ? col + d.text.length : d.text.length - nl - 1;
        break;
      }
    }
  }
  return out;
}
