/**
 * Computes the tables of `precomputed.ts` from the grammar, by constructing the lexer and the
 * parser the ordinary way (Chevrotain's full analysis) and reading what that analysis found.
 * Run at build time by scripts/generate-parser-tables.mjs; a test checks that the tables in
 * `dist/` equal what this computes (docs/decisions/0011-precomputed-grammar-analysis.md).
 */
import { getLookaheadPaths, LLkLookaheadStrategy, type ILookaheadStrategy, type TokenType } from "./chevrotain.js";
import { createLexer } from "./lexer/lexer.js";
import * as T from "./lexer/tokens.js";
import { PatchworkParser } from "./parser/parser.js";
import { lexerDefinition } from "./lexer/modes.js";
import {
  lexerFingerprint,
  parserFingerprint,
  type LexerTables,
  type LookaheadEntry,
  type ParserTables,
  type StoredConfig,
  type StoredMode,
  type Tables,
} from "./precomputed.js";

type Options = Parameters<ILookaheadStrategy["buildLookaheadForAlternation"]>[0];
type OptionalOptions = Parameters<ILookaheadStrategy["buildLookaheadForOptional"]>[0];
type Recorded = Omit<LookaheadEntry, "key" | "paths"> & { paths: TokenType[][][] };

/** Chevrotain's LL(k) strategy, noting the paths behind every lookahead function it builds. */
class RecordingStrategy extends LLkLookaheadStrategy {
  readonly built = new Map<unknown, Recorded>();

  override buildLookaheadForAlternation(o: Options): ReturnType<ILookaheadStrategy["buildLookaheadForAlternation"]> {
    const f = super.buildLookaheadForAlternation(o);
    const paths = getLookaheadPaths({ occurrence: o.prodOccurrence, rule: o.rule, prodType: "Alternation", maxLookahead: o.maxLookahead });
    this.built.set(f, { rule: o.rule.name, or: true, predicates: o.hasPredicates, paths });
    return f;
  }

  override buildLookaheadForOptional(o: OptionalOptions): ReturnType<ILookaheadStrategy["buildLookaheadForOptional"]> {
    const f = super.buildLookaheadForOptional(o);
    // As Chevrotain's buildLookaheadFuncForOptionalProd: the paths into the production only.
    const paths = getLookaheadPaths({ occurrence: o.prodOccurrence, rule: o.rule, prodType: o.prodType, maxLookahead: o.maxLookahead });
    this.built.set(f, { rule: o.rule.name, or: false, predicates: false, paths: [paths[0]!] });
    return f;
  }
}

interface ChevrotainParserState {
  fullRuleNameToShort: Record<string, number>;
  lookAheadFuncsCache: Map<number, unknown>;
}

/** Token types numbered in the order first seen: the tables name a token by its number in `tokens`. */
function tokenNumbers(): { tokens: string[]; indexOf: (t: TokenType) => number } {
  const tokens: string[] = [];
  const tokenIndex = new Map<string, number>();
  const indexOf = (t: TokenType): number => {
    let i = tokenIndex.get(t.name);
    if (i === undefined) {
      i = tokens.length;
      tokens.push(t.name);
      tokenIndex.set(t.name, i);
    }
    return i;
  };
  return { tokens, indexOf };
}

export function computeParserTables(): ParserTables {
  const strategy = new RecordingStrategy({ maxLookahead: 3 });
  const parser = new PatchworkParser({ analysis: "full", lookaheadStrategy: strategy }) as unknown as ChevrotainParserState;
  const { tokens, indexOf } = tokenNumbers();
  const lookahead: LookaheadEntry[] = [];
  for (const [key, f] of parser.lookAheadFuncsCache) {
    const r = strategy.built.get(f);
    const rule = r === undefined ? undefined : parser.fullRuleNameToShort[r.rule];
    if (r === undefined || rule === undefined || (key & rule) !== rule) throw new Error(`lookahead function ${key} was not built by the recording strategy`);
    lookahead.push({ ...r, key: key - rule, paths: r.paths.map((alt) => alt.map((path) => path.map(indexOf))) });
  }
  if (lookahead.length !== strategy.built.size) throw new Error("a lookahead function built was not cached");
  return { fingerprint: parserFingerprint(PatchworkParser, T.allTokens), tokens, lookahead };
}

interface ChevrotainConfig {
  pattern: unknown;
  longerAlt: number[] | undefined;
  canLineTerminator: boolean;
  isCustom: boolean;
  short: number | false;
  group: string | false | undefined;
  push: string | undefined;
  pop: boolean;
  tokenTypeIdx: number;
  tokenType: TokenType;
}

interface ChevrotainLexerState {
  modes: string[];
  defaultMode: string;
  emptyGroups: Record<string, unknown>;
  patternIdxToConfig: Record<string, ChevrotainConfig[]>;
  charCodeToPatternIdxToConfig: Record<string, (ChevrotainConfig[] | undefined)[]>;
  canModeBeOptimized: Record<string, boolean>;
}

export function computeLexerTables(): LexerTables {
  const lexer = createLexer("full") as unknown as ChevrotainLexerState;
  const { tokens, indexOf } = tokenNumbers();
  const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
  /** A token's pattern as Chevrotain rewrote it, which must be the same in every mode (it is shared). */
  const patternOf = new Map<string, string>();
  const modes: StoredMode[] = lexer.modes.map((name) => {
    if (lexer.canModeBeOptimized[name] !== true) throw new Error(`lexer mode ${name} is not optimized`);
    const configs = lexer.patternIdxToConfig[name]!;
    const stored = configs.map((c): StoredConfig => {
      const p = c.pattern;
      let pattern: StoredConfig[1];
      if (typeof p === "string") pattern = p;
      else if (p instanceof RegExp) pattern = [p.source, p.flags];
      else if (p === c.tokenType.PATTERN) pattern = "object";
      else if (typeof p === "object" && p !== null && (p as { exec?: unknown }).exec === c.tokenType.PATTERN && Object.keys(p).length === 1) pattern = "exec";
      else throw new Error(`pattern of ${c.tokenType.name} not understood`);
      if (c.tokenTypeIdx !== c.tokenType.tokenTypeIdx) throw new Error(`token type index of ${c.tokenType.name}`);
      const seen = patternOf.get(c.tokenType.name);
      if (seen !== undefined && seen !== JSON.stringify(pattern)) throw new Error(`the pattern of ${c.tokenType.name} differs between modes`);
      patternOf.set(c.tokenType.name, JSON.stringify(pattern));
      return [indexOf(c.tokenType), pattern, orNull(c.longerAlt), c.canLineTerminator, c.isCustom, c.short, orNull(c.group), orNull(c.push), c.pop];
    });
    const byBucket = lexer.charCodeToPatternIdxToConfig[name]!;
    const buckets: StoredMode["buckets"] = [];
    byBucket.forEach((b, bucket) => {
      const indices = b!.map((c) => {
        const i = configs.indexOf(c);
        if (i < 0) throw new Error(`a bucket of mode ${name} holds a configuration of no pattern`);
        return i;
      });
      const run = buckets[buckets.length - 1];
      if (run !== undefined && run[1] === bucket - 1 && run[2].join() === indices.join()) run[1] = bucket;
      else buckets.push([bucket, bucket, indices]);
    });
    return { name, configs: stored, buckets, bucketsLength: byBucket.length };
  });
  return {
    fingerprint: lexerFingerprint(T.allTokens, lexerDefinition),
    tokens,
    modes,
    defaultMode: lexer.defaultMode,
    emptyGroups: Object.keys(lexer.emptyGroups),
  };
}

export function computeTables(): Tables {
  return { lexer: computeLexerTables(), parser: computeParserTables() };
}
