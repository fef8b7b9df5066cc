/**
 * Folds and semantic tokens: what the editor queries need from each chunk's AST, found in one
 * walk and kept with the chunk (computed ahead of the first request by `prepareQueries`).
 */
import type { AnalysisDocument, BuildControl, Chunk } from "./document.js";
import type { Range } from "./ide.js";
import { walk } from "./walk.js";

/**
 * What the editor queries need from a chunk's AST, found in one walk and kept as long as the
 * chunk is (an edit replaces only the chunks it touches): folds and the structural semantic
 * tokens, at offsets relative to the chunk; and the last token list with the types its names
 * had then.
 */
interface ChunkView {
  folds: Range[];
  structural: SemanticToken[];
  refTypes: string | null;
  tokens: SemanticToken[];
}

const views = new WeakMap<Chunk, ChunkView>();

function viewOf(chunk: Chunk): ChunkView {
  let v = views.get(chunk);
  if (v) return v;
  const folds: Range[] = [];
  const structural: SemanticToken[] = [];
  const text = chunk.text;
  walk(chunk.body, (n) => {
    const s = n.span.start.offset;
    const e = n.span.end.offset;
    switch (n.kind) {
      case "Block":
      case "Think":
      case "TraitDecl":
      case "Object":
      case "Array": {
        const nl = text.indexOf("\n", s);
        if (nl >= 0 && nl < e) folds.push({ start: s, end: e });
        break;
      }
      case "PromptText":
        structural.push({ start: s, end: e, type: "prompt" });
        break;
      case "PromptInterp":
        structural.push({ start: s, end: e, type: "interpolation" });
        break;
      case "DoRef":
        structural.push({ start: s, end: s + 2, type: "doBlock" });
        break;
      case "ShellText":
        structural.push({ start: s, end: e, type: "shell" });
        break;
      case "ShellInterp":
        structural.push({ start: s, end: e, type: "shellInterpolation" });
        break;
    }
  });
  for (const c of chunk.comments) structural.push({ start: c.span.start.offset, end: c.span.end.offset, type: "comment" });
  v = { folds, structural, refTypes: null, tokens: [] };
  views.set(chunk, v);
  return v;
}

/**
 * Computes what the editor queries keep per chunk (folds, structural tokens) ahead of the
 * first request, pausing as `AnalysisDocument.build` does; false when stopped as stale.
 */
export async function prepareQueries(doc: AnalysisDocument, control: BuildControl): Promise<boolean> {
  const slice = control.sliceMs ?? 8;
  let t0 = performance.now();
  for (const chunk of doc.chunks) {
    viewOf(chunk);
    if (performance.now() - t0 >= slice) {
      await control.pause();
      if (control.stale?.()) return false;
      t0 = performance.now();
    }
  }
  return true;
}

/** Blocks, prompts, shell captures and comment runs spanning several lines. */
export function foldingRanges(doc: AnalysisDocument): Range[] {
  const out: Range[] = [];
  for (const chunk of doc.chunks) for (const f of viewOf(chunk).folds) out.push({ start: chunk.start + f.start, end: chunk.start + f.end });
  return out;
}

export type SemanticType = "keyword" | "prompt" | "interpolation" | "doBlock" | "shell" | "shellInterpolation" | "function" | "variable" | "parameter" | "comment";
export const SEMANTIC_TYPES: readonly SemanticType[] = ["keyword", "prompt", "interpolation", "doBlock", "shell", "shellInterpolation", "function", "variable", "parameter", "comment"];

export interface SemanticToken {
  start: number;
  end: number;
  type: SemanticType;
}

/**
 * Tokens that tell prompt text from its interpolations and `do` blocks, shell text from shell
 * interpolations, and names by what they denote. Sorted, non-overlapping.
 */
export function semanticTokens(doc: AnalysisDocument): SemanticToken[] {
  const result: SemanticToken[] = [];
  doc.chunks.forEach((chunk, u) => {
    const view = viewOf(chunk);
    const refs: SemanticToken[] = [];
    let types = "";
    for (const r of chunk.facts.refs) {
      const t = doc.module.resolve(u, r);
      const type: SemanticType = t.kind === "builtin" || (t.kind === "decl" && t.decl.signature) ? "function" : t.kind === "decl" && t.decl.kind === "param" ? "parameter" : "variable";
      types += type[0];
      refs.push({ start: r.start, end: r.end, type });
    }
    // The names' types depend on the rest of the module: the chunk's list is redone when they change.
    if (view.refTypes !== types) {
      view.tokens = flatten([...view.structural.map((t) => ({ ...t })), ...refs]);
      view.refTypes = types;
    }
    for (const t of view.tokens) result.push({ start: chunk.start + t.start, end: chunk.start + t.end, type: t.type });
  });
  return result;
}

/** Sorted, non-overlapping tokens; where two overlap, the innermost wins. */
function flatten(out: SemanticToken[]): SemanticToken[] {
  out.sort((x, y) => x.start - y.start || y.end - x.end);
  // Keep the innermost token where two overlap (an interpolation inside prompt text is its own token).
  const flat: SemanticToken[] = [];
  for (const t of out) {
    const last = flat[flat.length - 1];
    if (last && t.start < last.end) {
      // Split the outer token around the inner one.
      const tail = { start: t.end, end: last.end, type: last.type };
      last.end = t.start;
      if (last.end <= last.start) flat.pop();
      flat.push(t);
      if (tail.end > tail.start) flat.push(tail);
      continue;
    }
    flat.push(t);
  }
  const sorted = flat.filter((t) => t.end > t.start).sort((x, y) => x.start - y.start);
  const result: SemanticToken[] = [];
  for (const t of sorted) if (result.length === 0 || t.start >= result[result.length - 1]!.end) result.push(t);
  return result;
}
