// The child process of precomputed.property.test.ts: compares, in plain Node, the compiled lexer and parser
// (dist/) built from the build's tables with ones that did Chevrotain's full analysis. It must run
// outside vitest: the parser's fingerprint is a hash of its classes' source text, which vitest's
// module transform changes (a parser whose text is not the one the tables were computed from
// does not use them, so under vitest every parser would do the full analysis).
//
// BARE is a copy of DIST as a bare `tsc -b` leaves it: no tables, and `chevrotain.js` the plain
// re-export of Chevrotain as published (not the build's patched bundle): the same inputs must
// give the same results there, by Chevrotain's own full analysis.
//
//   node precomputed-check.mjs DIST BARE INPUTS.json   → one JSON report on stdout
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, bareDist, inputsFile] = process.argv.slice(2);
const load = (file, from = dist) => import(pathToFileURL(join(from, file)).href);
const { computeTables } = await load("computeTables.js");
const { createLexer, tokenize } = await load("lexer/lexer.js");
const { allTokens } = await load("lexer/tokens.js");
const { parseWith } = await load("parse.js");
const { PatchworkParser } = await load("parser/parser.js");
const { parserFingerprint, parserTables } = await load("precomputed.js");
const tables = (await load("tables.js")).loadTables();
const bare = {
  tables: (await load("tables.js", bareDist)).loadTables(),
  chevrotain: await load("chevrotain.js", bareDist),
  parseWith: (await load("parse.js", bareDist)).parseWith,
  tokenize: (await load("lexer/lexer.js", bareDist)).tokenize,
  getParser: (await load("parse.js", bareDist)).getParser,
};

const recorded = (p) => Object.keys(p.gastProductionsCache).length;
const cacheKeys = (p) => [...p.lookAheadFuncsCache.keys()].sort((a, b) => a - b);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Everything of a lexer's own state, as comparable data: each mode's pattern configurations
 * (patterns by what they are: the character, the regexp's source and flags, or which of the
 * token type's objects), the buckets as indices of those configuration objects (so that sharing
 * counts), functions by identity (per-instance closures by their text), the order of the fields.
 */
function lexerState(lexer, functionIds) {
  const fn = (f) => {
    if (!functionIds.has(f)) functionIds.set(f, `function#${functionIds.size}`);
    return functionIds.get(f);
  };
  const pattern = (c) =>
    typeof c.pattern === "string"
      ? { char: c.pattern }
      : c.pattern instanceof RegExp
        ? { source: c.pattern.source, flags: c.pattern.flags, lastIndex: c.pattern.lastIndex }
        : c.pattern === c.tokenType.PATTERN
          ? "the token's pattern object"
          : { keys: Object.keys(c.pattern), exec: c.pattern.exec === c.tokenType.PATTERN ? "the token's pattern function" : fn(c.pattern.exec) };
  const out = { keys: Object.keys(lexer) };
  for (const [k, v] of Object.entries(lexer)) {
    if (k === "patternIdxToConfig") {
      out[k] = Object.fromEntries(
        Object.entries(v).map(([mode, configs]) => [mode, configs.map((c) => ({ ...c, keys: Object.keys(c), pattern: pattern(c), tokenType: c.tokenType.name }))]),
      );
    } else if (k === "charCodeToPatternIdxToConfig") {
      out[k] = Object.fromEntries(
        Object.entries(v).map(([mode, buckets]) => [mode, { length: buckets.length, holes: Array.from(buckets, (b, i) => !(i in buckets)).filter(Boolean).length, buckets: Array.from(buckets, (b) => b?.map((c) => lexer.patternIdxToConfig[mode].indexOf(c))) }]),
      );
    } else if (k === "TRACE_INIT") out[k] = String(v);
    else if (typeof v === "function") out[k] = fn(v);
    else if (k === "config") out[k] = Object.fromEntries(Object.entries(v).map(([ck, cv]) => [ck, typeof cv === "function" || (typeof cv === "object" && cv !== null && !Array.isArray(cv)) ? fn(cv) : cv]));
    else out[k] = v;
  }
  return JSON.stringify(out);
}
const recordedLexer = (lexer) => Object.keys(lexer.patternIdxToConfig).length;

const report = {};
report.tablesPresent = tables !== undefined;
report.tablesEqualComputed = same(tables, computeTables());

const fast = { lexer: createLexer("auto"), parser: new PatchworkParser({ analysis: "auto" }) };
const full = { lexer: createLexer("full"), parser: new PatchworkParser({ analysis: "full" }) };
// A parser from the tables builds each lookahead function when a parse first asks for it; the
// corpus below is parsed by one whose functions were all built that way (`fast`'s are built at
// once, by listing its cache's keys). Map.prototype's own `size` counts the ones built.
const lazy = { lexer: fast.lexer, parser: new PatchworkParser({ analysis: "auto" }) };
const built = (p) => Reflect.get(Map.prototype, "size", p.lookAheadFuncsCache);
report.lazyBuiltAtStart = built(lazy.parser);
report.fastRecordedRules = recorded(fast.parser);
report.fullRecordedRules = recorded(full.parser);
{
  const ids = new Map();
  const a = lexerState(fast.lexer, ids);
  const b = lexerState(full.lexer, ids);
  report.lexerStateEqual = a === b;
  if (a !== b) report.lexerStates = { fromTables: a, full: b };
}
report.lexerModes = recordedLexer(fast.lexer);
report.lookaheadKeysEqual = same(cacheKeys(fast.parser), cacheKeys(full.parser));
report.lookaheadDecisions = cacheKeys(fast.parser).length;

/** Tokens, AST, comments and diagnostics of `source`, as one comparable string. */
function outcome(engine, source) {
  return described(tokenize(source, engine.lexer), parseWith(engine, source, { fileName: "t.pw" }));
}

/** `outcome` by the bare copy's own `parse` (its process-wide lexer and parser). */
function bareOutcome(source) {
  return described(bare.tokenize(source), bare.parseWith(undefined, source, { fileName: "t.pw" }));
}

/** What a lex and a parse gave, as one comparable string. */
function described(lexed, r) {
  return JSON.stringify({
    tokens: lexed.tokens.map((t) => [t.tokenType.name, t.startOffset, t.image]),
    lexErrors: lexed.errors,
    comments: r.comments,
    program: r.program,
    diagnostics: r.diagnostics,
    recoveredToEnd: r.recoveredToEnd,
  });
}

const inputs = JSON.parse(readFileSync(inputsFile, "utf8"));
report.compared = 0;
report.withErrors = 0;
report.mismatches = [];
report.bareMismatches = [];
for (const source of inputs) {
  const a = outcome(lazy, source);
  const b = outcome(full, source);
  report.compared++;
  if (JSON.parse(b).diagnostics.some((d) => d.severity === "error")) report.withErrors++;
  if (a !== b && report.mismatches.length < 3) report.mismatches.push({ source, fromTables: a, full: b });
  if (a !== bareOutcome(source) && report.bareMismatches.length < 3) report.bareMismatches.push(source);
}
report.lazyBuiltAfterCorpus = built(lazy.parser);
report.lazyKeysEqual = same(cacheKeys(lazy.parser), cacheKeys(full.parser));
report.bareTablesPresent = bare.tables !== undefined;
report.bareHasInternals = bare.chevrotain.chevrotainInternals !== undefined;
report.bareRecordedRules = recorded(bare.getParser());
// Its grammar, recorded on request (by a parser of its own: its own cache stays empty).
report.fastRecordedRulesAfter = recorded(fast.parser);
report.grammarRecordedOnRequest = same(fast.parser.getSerializedGastProductions(), full.parser.getSerializedGastProductions());

// Tables that do not match the parser's code are not used.
class Changed extends PatchworkParser {}
report.changedFingerprintDiffers = parserFingerprint(Changed, allTokens) !== parserFingerprint(PatchworkParser, allTokens);
report.tablesMatchParser = parserTables(PatchworkParser, allTokens) !== undefined;
report.tablesMatchChanged = parserTables(Changed, allTokens) !== undefined;
report.changedRecordedRules = recorded(new Changed());

// PATCHWORK_VALIDATE_GRAMMAR=1: the full analysis, with validations.
process.env.PATCHWORK_VALIDATE_GRAMMAR = "1";
const validated = new PatchworkParser();
report.validateRecordedRules = recorded(validated);
report.validateSkipsValidations = validated.skipValidations;

console.log(JSON.stringify(report));
