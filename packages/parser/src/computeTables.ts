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
import { lexerFingerprint, parserFingerprint, type LexerTables, type LookaheadEntry, type ParserTables, type Tables } from "./precomputed.js";

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

export function computeParserTables(): ParserTables {
  const strategy = new RecordingStrategy({ maxLookahead: 3 });
  const parser = new PatchworkParser({ analysis: "full", lookaheadStrategy: strategy }) as unknown as ChevrotainParserState;
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

interface ChevrotainLexerState {
  charCodeToPatternIdxToConfig: Record<string, ({ tokenType: TokenType }[] | undefined)[]>;
}

export function computeLexerTables(): LexerTables {
  const lexer = createLexer("full") as unknown as ChevrotainLexerState;
  const analysed = new Set(T.allTokens.filter((t) => t.PATTERN instanceof RegExp && t.START_CHARS_HINT === undefined).map((t) => t.name));
  const buckets = new Map<string, Set<number>>();
  for (const byBucket of Object.values(lexer.charCodeToPatternIdxToConfig)) {
    byBucket.forEach((configs, bucket) => {
      for (const { tokenType } of configs ?? []) {
        if (!analysed.has(tokenType.name)) continue;
        let set = buckets.get(tokenType.name);
        if (set === undefined) buckets.set(tokenType.name, (set = new Set()));
        set.add(bucket);
      }
    });
  }
  const startBuckets: Record<string, number[]> = {};
  for (const name of [...buckets.keys()].sort()) startBuckets[name] = [...buckets.get(name)!].sort((a, b) => a - b);
  return { fingerprint: lexerFingerprint(T.allTokens), startBuckets };
}

export function computeTables(): Tables {
  return { lexer: computeLexerTables(), parser: computeParserTables() };
}
