/**
 * The lexer and the parser built from grammar analysis computed at build time
 * (docs/decisions/0011-precomputed-grammar-analysis.md).
 *
 * Chevrotain analyses a grammar when the lexer and the parser are constructed: the lexer works
 * out which characters can start each regexp token (by parsing the regexps), the parser records
 * its rules into a grammar tree (running every rule once in a "recording phase") and computes
 * the lookahead paths of every `OR`, `OPTION` and `MANY`. That is most of a cold start. The build
 * (`computeTables.ts`, run by scripts/generate-parser-tables.mjs) constructs both the ordinary way
 * and stores what the analysis found, as data, in `dist/tables.js`:
 *
 * - for every regexp token without a `start_chars_hint`, the first-character buckets Chevrotain
 *   put it in; here they become `START_CHARS_HINT`s for the lexer's construction only;
 * - for every lookahead decision of the parser, the paths Chevrotain's `LLkLookaheadStrategy`
 *   computed; here Chevrotain's own builders turn them into the same lookahead functions, and
 *   the grammar is not recorded. The grammar tree, which Chevrotain needs only for the expected
 *   paths of a syntax error's message (and the syntax diagrams), is recorded on first request,
 *   by a separate parser instance (`PatchworkParser.getGAstProductions`).
 *
 * Each table carries a fingerprint of what it was computed from; a table that does not match
 * the code that loads it is not used (see `lexerTables`, `parserTables`), and then, as without
 * tables, Chevrotain analyses the grammar itself. `PATCHWORK_VALIDATE_GRAMMAR=1` always does.
 */
import * as chevrotain from "./chevrotain.js";
import type { TokenType } from "./chevrotain.js";
import { tables } from "./tables.js";

/** What the build stores (dist/tables.js). */
export interface Tables {
  lexer: LexerTables;
  parser: ParserTables;
}

export interface LexerTables {
  fingerprint: string;
  /** Token name → the first-character buckets (Chevrotain's optimized char indices) it is in. */
  startBuckets: Record<string, number[]>;
}

export interface ParserTables {
  fingerprint: string;
  /** Token names, referred to by index in `lookahead`. */
  tokens: string[];
  lookahead: LookaheadEntry[];
}

/** One lookahead decision of the parser: the function Chevrotain caches under `rule`'s key + `key`. */
export interface LookaheadEntry {
  rule: string;
  /** The cache key without the rule's part: the DSL method's index | the occurrence. */
  key: number;
  /** An `OR` (else an `OPTION`, `MANY`, `AT_LEAST_ONE`, … of one alternative). */
  or: boolean;
  /** The `OR` has `GATE`s. */
  predicates: boolean;
  /** Alternatives → paths → token indices (an optional production has one alternative). */
  paths: number[][][];
}

/** The functions of Chevrotain's own that turn lookahead paths into lookahead functions. */
interface Internals {
  buildAlternativesLookAheadFunc(alts: TokenType[][][], hasPredicates: boolean, tokenMatcher: unknown, dynamicTokensEnabled: boolean): unknown;
  buildSingleAlternativeLookaheadFunction(alt: TokenType[][], tokenMatcher: unknown, dynamicTokensEnabled: boolean): unknown;
  areTokenCategoriesNotUsed(paths: TokenType[][][]): boolean;
  tokenStructuredMatcher: unknown;
  tokenStructuredMatcherNoCategories: unknown;
  toFastProperties(o: object): void;
}

/**
 * Exported by the pre-bundled Chevrotain only (scripts/bundle-vendor.mjs); absent when
 * `dist/chevrotain.js` is the plain re-export of a bare `tsc -b`.
 */
const internals = (chevrotain as unknown as { chevrotainInternals?: Internals }).chevrotainInternals;

/**
 * Set by scripts/bundle-cli.mjs (esbuild's `define`) in the CLI's bundle, which it builds only
 * after checking the tables of the `dist/` it bundles against that code: the bundle's text is
 * esbuild's reprint of `dist/`, so the parser's fingerprint of its own source (below) would not
 * match there.
 */
declare const __PATCHWORK_TABLES_CHECKED__: boolean | undefined;
const checkedAtBuild = typeof __PATCHWORK_TABLES_CHECKED__ === "boolean" && __PATCHWORK_TABLES_CHECKED__;

/** A 64-bit string hash (two 32-bit FNV-1a-style lanes): enough to tell one grammar from another. */
export function hash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}

function describeTokens(tokens: readonly TokenType[]): string {
  return tokens
    .map((t) => {
      const p = t.PATTERN;
      const pattern = p instanceof RegExp ? String(p) : typeof p === "string" ? JSON.stringify(p) : typeof p;
      const categories = (t.CATEGORIES ?? []).map((c) => c.name).join(",");
      return `${t.name} ${pattern} ${t.START_CHARS_HINT === undefined ? "" : "hint"} ${categories}`;
    })
    .join("\n");
}

/** What the lexer's first-character analysis depends on: the token types and their patterns. */
export function lexerFingerprint(tokens: readonly TokenType[]): string {
  return hash(`chevrotain ${chevrotain.VERSION}\n${describeTokens(tokens)}`);
}

/**
 * What the parser's grammar analysis depends on: the source of every class of the parser (its
 * rules are class fields, their helpers methods) and the token types.
 */
export function parserFingerprint(parserClass: abstract new (...args: never[]) => unknown, tokens: readonly TokenType[]): string {
  const sources: string[] = [];
  for (let c: unknown = parserClass; typeof c === "function" && c !== chevrotain.EmbeddedActionsParser; c = Object.getPrototypeOf(c)) {
    sources.push(Function.prototype.toString.call(c));
  }
  return hash(`chevrotain ${chevrotain.VERSION}\n${describeTokens(tokens)}\n${sources.join("\n")}`);
}

/** The lexer's tables, when present and computed from these token types. */
export function lexerTables(tokens: readonly TokenType[]): LexerTables | undefined {
  const t = tables?.lexer;
  return t !== undefined && t.fingerprint === lexerFingerprint(tokens) ? t : undefined;
}

/** The parser's tables, when present, usable and computed from this parser's code. */
export function parserTables(parserClass: abstract new (...args: never[]) => unknown, tokens: readonly TokenType[]): ParserTables | undefined {
  const t = tables?.parser;
  if (t === undefined || internals === undefined) return undefined;
  if (!checkedAtBuild && t.fingerprint !== parserFingerprint(parserClass, tokens)) return undefined;
  return t;
}

/** A char code in Chevrotain's first-character bucket `bucket` (`charCodeToOptimizedIndex`'s inverse). */
function charCodeOfBucket(bucket: number): number {
  return bucket < 256 ? bucket : Math.max(256, (bucket - 255) * 255);
}

/**
 * `build()` (a lexer's construction) with the stored first-character buckets given as
 * `START_CHARS_HINT`s, which Chevrotain takes instead of analysing the regexps; the hints are
 * removed again afterwards (they are read at construction only).
 */
export function withStartCharsHints<T>(table: LexerTables, tokens: readonly TokenType[], build: () => T): T {
  const hinted: TokenType[] = [];
  try {
    for (const t of tokens) {
      const buckets = table.startBuckets[t.name];
      if (buckets === undefined || t.START_CHARS_HINT !== undefined) continue;
      t.START_CHARS_HINT = buckets.map(charCodeOfBucket);
      hinted.push(t);
    }
    return build();
  } finally {
    for (const t of hinted) delete t.START_CHARS_HINT;
  }
}

/** The part of Chevrotain's parser that its own `performSelfAnalysis` fills in. */
interface AnalysedParser {
  tokensMap: Record<string, TokenType>;
  fullRuleNameToShort: Record<string, number>;
  dynamicTokensEnabled: boolean;
  lookAheadFuncsCache: Map<number, unknown>;
  selfAnalysisDone: boolean;
}

/**
 * Does for `parser` what Chevrotain's `performSelfAnalysis` does on the normal path (no
 * validations, no error recovery), with the lookahead paths from `table` instead of a recorded
 * grammar. Returns false, changing nothing, when the table names a rule or token the parser
 * does not have.
 */
export function installLookahead(parser: object, table: ParserTables): boolean {
  const I = internals;
  if (I === undefined) return false;
  const p = parser as AnalysedParser;
  const tokens: TokenType[] = [];
  for (const name of table.tokens) {
    const t = p.tokensMap[name];
    if (t === undefined) return false;
    tokens.push(t);
  }
  const functions: [number, unknown][] = [];
  for (const e of table.lookahead) {
    const rule = p.fullRuleNameToShort[e.rule];
    if (rule === undefined) return false;
    const paths = e.paths.map((alt) => alt.map((path) => path.map((i) => tokens[i]!)));
    const matcher = I.areTokenCategoriesNotUsed(paths) ? I.tokenStructuredMatcherNoCategories : I.tokenStructuredMatcher;
    const f = e.or
      ? I.buildAlternativesLookAheadFunc(paths, e.predicates, matcher, p.dynamicTokensEnabled)
      : I.buildSingleAlternativeLookaheadFunction(paths[0]!, matcher, p.dynamicTokensEnabled);
    functions.push([rule + e.key, f]);
  }
  p.selfAnalysisDone = true;
  I.toFastProperties(p);
  for (const [key, f] of functions) p.lookAheadFuncsCache.set(key, f);
  return true;
}
