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
 * - for every lexer mode, what Chevrotain's `analyzeTokenTypes` made of it: each pattern's
 *   configuration and the first-character buckets (which, for the regexps, come from parsing
 *   them); here they are installed on a lexer constructed for one token (`lexerFromTables`);
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
import { createRequire } from "node:module";
import * as chevrotain from "./chevrotain.js";
import type { IMultiModeLexerDefinition, TokenType } from "./chevrotain.js";
import type { LexerTables, LookaheadEntry, ParserTables, StoredConfig, StoredMode, Tables } from "./stored-tables.js";
import { loadTables } from "./tables.js";

export type { LexerTables, LookaheadEntry, ParserTables, StoredConfig, StoredMode, Tables } from "./stored-tables.js";

/** The functions of Chevrotain's own that turn lookahead paths into lookahead functions. */
interface Internals {
  buildAlternativesLookAheadFunc(alts: TokenType[][][], hasPredicates: boolean, tokenMatcher: unknown, dynamicTokensEnabled: boolean): unknown;
  buildSingleAlternativeLookaheadFunction(alt: TokenType[][], tokenMatcher: unknown, dynamicTokensEnabled: boolean): unknown;
  areTokenCategoriesNotUsed(paths: TokenType[][][]): boolean;
  tokenStructuredMatcher: unknown;
  tokenStructuredMatcherNoCategories: unknown;
  toFastProperties(o: object): void;
}

/** The lexer's own state, as its constructor leaves it (the fields `analyzeTokenTypes` fills). */
interface LexerState {
  lexerDefinition: unknown;
  patternIdxToConfig: Record<string, object[]>;
  charCodeToPatternIdxToConfig: Record<string, (object[] | undefined)[]>;
  modes: string[];
  emptyGroups: Record<string, never[]>;
  hasCustom: boolean;
  canModeBeOptimized: Record<string, boolean>;
  defaultMode: string;
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
 * match there, and the tables cannot be older than the code. The bundle checks no fingerprint.
 */
declare const __PATCHWORK_TABLES_CHECKED__: boolean | undefined;
const checkedAtBuild = typeof __PATCHWORK_TABLES_CHECKED__ === "boolean" && __PATCHWORK_TABLES_CHECKED__;

/**
 * A short SHA-256 of `text`: enough to tell one grammar from another. `node:crypto` is loaded
 * only here, on the path that checks fingerprints (not in the bundle, see above).
 */
export function hash(text: string): string {
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Every property of the token types that the lexer's or the parser's analysis reads. */
function describeTokens(tokens: readonly TokenType[]): string {
  const names = (ts: TokenType | TokenType[] | undefined): string => (ts === undefined ? "" : [ts].flat().map((t) => t.name).join(","));
  return tokens
    .map((t) => {
      const p = t.PATTERN;
      const pattern = p instanceof RegExp ? String(p) : typeof p === "string" ? JSON.stringify(p) : typeof p;
      const hint = t.START_CHARS_HINT === undefined ? "" : JSON.stringify(t.START_CHARS_HINT);
      const group = typeof t.GROUP === "string" ? t.GROUP : String(t.GROUP);
      return [t.name, pattern, hint, names(t.CATEGORIES), group, t.PUSH_MODE ?? "", String(t.POP_MODE), names(t.LONGER_ALT), String(t.LINE_BREAKS)].join(" ");
    })
    .join("\n");
}

/** What the lexer's analysis depends on: the token types and the modes. */
export function lexerFingerprint(tokens: readonly TokenType[], definition: IMultiModeLexerDefinition): string {
  const modes = Object.entries(definition.modes).map(([name, ts]) => `${name}: ${ts.map((t) => t.name).join(" ")}`);
  return hash(`chevrotain ${chevrotain.VERSION}\n${describeTokens(tokens)}\n${definition.defaultMode}\n${modes.join("\n")}`);
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

/** The lexer's tables, when present and computed from these token types and modes. */
export function lexerTables(tokens: readonly TokenType[], definition: IMultiModeLexerDefinition): LexerTables | undefined {
  const t = loadTables()?.lexer;
  if (t === undefined) return undefined;
  return checkedAtBuild || t.fingerprint === lexerFingerprint(tokens, definition) ? t : undefined;
}

/** The parser's tables, when present, usable and computed from this parser's code. */
export function parserTables(parserClass: abstract new (...args: never[]) => unknown, tokens: readonly TokenType[]): ParserTables | undefined {
  const t = loadTables()?.parser;
  if (t === undefined || internals === undefined) return undefined;
  if (!checkedAtBuild && t.fingerprint !== parserFingerprint(parserClass, tokens)) return undefined;
  return t;
}

/**
 * A lexer for `definition` with the state Chevrotain's constructor would compute, from `table`.
 * `construct(seed)` constructs Chevrotain's lexer with this process's configuration for `seed`,
 * a definition of one mode holding one custom-pattern token: that sets everything that does not
 * depend on the modes (the configuration, the choice of internal methods: several modes, custom
 * patterns, positions by offset only) at the cost of analysing one token. The per-mode state is
 * then replaced with the table's: each pattern's configuration (custom patterns taken from the
 * token types, as Chevrotain does) and the first-character buckets, which share those
 * configuration objects as Chevrotain's do. Returns undefined when the table names a token the
 * definition lacks.
 */
export function lexerFromTables<L>(table: LexerTables, definition: IMultiModeLexerDefinition, seedToken: TokenType, construct: (seed: IMultiModeLexerDefinition) => L): L | undefined {
  const byName = new Map<string, TokenType>();
  for (const ts of Object.values(definition.modes)) for (const t of ts) byName.set(t.name, t);
  const tokens: TokenType[] = [];
  for (const name of table.tokens) {
    const t = byName.get(name);
    if (t === undefined) return undefined;
    tokens.push(t);
  }
  const patternIdxToConfig: Record<string, object[]> = {};
  const charCodeToPatternIdxToConfig: Record<string, (object[] | undefined)[]> = {};
  const canModeBeOptimized: Record<string, boolean> = {};
  const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);
  // One pattern object per token for all the modes it is in (Chevrotain makes one per mode; the
  // lexer sets a regexp's lastIndex before each use, so they cannot tell): a token is in up to
  // 21 modes, and creating its regexps again for each was most of this function's time.
  const patterns = new Map<number, unknown>();
  const build = (mode: StoredMode): { configs: object[]; buckets: (object[] | undefined)[] } => {
    const configs = mode.configs.map(([token, stored, longerAlt, canLineTerminator, isCustom, short, group, push, pop]) => {
      const tokenType = tokens[token]!;
      let pattern = patterns.get(token);
      if (pattern === undefined) {
        pattern =
          stored === "exec"
            ? { exec: tokenType.PATTERN }
            : stored === "object"
              ? tokenType.PATTERN
              : typeof stored === "string"
                ? stored
                : new RegExp(stored[0], stored[1]);
        patterns.set(token, pattern);
      }
      return {
        pattern,
        longerAlt: orUndefined(longerAlt),
        canLineTerminator,
        isCustom,
        short,
        group: orUndefined(group),
        push: orUndefined(push),
        pop,
        tokenTypeIdx: tokenType.tokenTypeIdx,
        tokenType,
      };
    });
    const buckets: (object[] | undefined)[] = [];
    for (const [first, last, indices] of mode.buckets) {
      // One array for a run of buckets (Chevrotain makes one per bucket; the lexer only reads them).
      const tried = indices.map((i) => configs[i]!);
      for (let b = first; b <= last; b++) buckets[b] = tried;
    }
    buckets.length = mode.bucketsLength;
    return { configs, buckets };
  };
  // Each mode's configurations and buckets are made when the lexer first enters the mode (it
  // reads them only then, by name): a file uses a few of the 21 modes (docs/decisions/0018).
  // Everything else that reads them (the tests' comparison with Chevrotain's own) gets them too.
  for (const mode of table.modes) {
    let made: ReturnType<typeof build> | undefined;
    const make = () => (made ??= build(mode));
    lazyProperty(patternIdxToConfig, mode.name, () => make().configs);
    lazyProperty(charCodeToPatternIdxToConfig, mode.name, () => make().buckets);
    canModeBeOptimized[mode.name] = true;
  }
  const lexer = construct({ modes: { seed: [seedToken] }, defaultMode: "seed" });
  const state = lexer as unknown as LexerState;
  if (!state.hasCustom) return undefined;
  state.lexerDefinition = definition;
  state.patternIdxToConfig = patternIdxToConfig;
  state.charCodeToPatternIdxToConfig = charCodeToPatternIdxToConfig;
  state.modes = table.modes.map((m) => m.name);
  state.emptyGroups = Object.fromEntries(table.emptyGroups.map((g) => [g, []]));
  state.canModeBeOptimized = canModeBeOptimized;
  state.defaultMode = table.defaultMode;
  return lexer;
}

/** Defines `object[key]` as `make()`, called on the first read, then an ordinary property. */
function lazyProperty<T>(object: Record<string, T>, key: string, make: () => T): void {
  Object.defineProperty(object, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value = make();
      Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      return value;
    },
    set(value: T) {
      Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    },
  });
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
 * does not have. Each lookahead function is built when the parser first asks for it
 * (`LazyLookahead`): a parse uses a few of them, and building all ≈ 400 was most of the
 * parser's construction on a cold start.
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
  const pending = new Map<number, LookaheadEntry>();
  for (const e of table.lookahead) {
    const rule = p.fullRuleNameToShort[e.rule];
    if (rule === undefined) return false;
    pending.set(rule + e.key, e);
  }
  const dynamicTokensEnabled = p.dynamicTokensEnabled;
  const build = (e: LookaheadEntry): unknown => {
    const paths = e.paths.map((alt) => alt.map((path) => path.map((i) => tokens[i]!)));
    const matcher = I.areTokenCategoriesNotUsed(paths) ? I.tokenStructuredMatcherNoCategories : I.tokenStructuredMatcher;
    return e.or
      ? I.buildAlternativesLookAheadFunc(paths, e.predicates, matcher, dynamicTokensEnabled)
      : I.buildSingleAlternativeLookaheadFunction(paths[0]!, matcher, dynamicTokensEnabled);
  };
  p.selfAnalysisDone = true;
  I.toFastProperties(p);
  p.lookAheadFuncsCache = new LazyLookahead(pending, build);
  return true;
}

/**
 * Chevrotain's cache of lookahead functions (`getLaFuncFromCache` reads it with `get`), whose
 * functions are built from the table on first `get`. Everything else (`has`, `size`,
 * iteration) first builds the rest: as a map it is the one `performSelfAnalysis` fills.
 */
class LazyLookahead extends Map<number, unknown> {
  constructor(
    private pending: Map<number, LookaheadEntry> | undefined,
    private readonly build: (e: LookaheadEntry) => unknown,
  ) {
    super();
  }

  override get(key: number): unknown {
    const f = super.get(key);
    if (f !== undefined || this.pending === undefined) return f;
    const e = this.pending.get(key);
    if (e === undefined) return undefined;
    const built = this.build(e);
    this.pending.delete(key);
    super.set(key, built);
    return built;
  }

  /** Builds every function not built yet (in the table's order). */
  private complete(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    for (const [key, e] of pending) if (!super.has(key)) super.set(key, this.build(e));
  }

  override has(key: number): boolean {
    this.complete();
    return super.has(key);
  }
  override get size(): number {
    this.complete();
    return super.size;
  }
  override keys(): MapIterator<number> {
    this.complete();
    return super.keys();
  }
  override values(): MapIterator<unknown> {
    this.complete();
    return super.values();
  }
  override entries(): MapIterator<[number, unknown]> {
    this.complete();
    return super.entries();
  }
  override [Symbol.iterator](): MapIterator<[number, unknown]> {
    return this.entries();
  }
  override forEach(f: (value: unknown, key: number, map: Map<number, unknown>) => void, thisArg?: unknown): void {
    this.complete();
    super.forEach(f, thisArg);
  }
}
