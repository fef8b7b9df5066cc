// The child process of precomputed.test.ts: compares, in plain Node, the compiled lexer and parser
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
const { parserFingerprint } = await load("precomputed.js");
const { tables } = await load("tables.js");
const bare = {
  tables: (await load("tables.js", bareDist)).tables,
  chevrotain: await load("chevrotain.js", bareDist),
  parseWith: (await load("parse.js", bareDist)).parseWith,
  tokenize: (await load("lexer/lexer.js", bareDist)).tokenize,
  getParser: (await load("parse.js", bareDist)).getParser,
};

const recorded = (p) => Object.keys(p.gastProductionsCache).length;
const cacheKeys = (p) => [...p.lookAheadFuncsCache.keys()].sort((a, b) => a - b);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Chevrotain's first-character buckets of each lexer mode, by token name. */
function buckets(lexer) {
  return Object.fromEntries(
    Object.entries(lexer.charCodeToPatternIdxToConfig).map(([mode, b]) => [mode, Array.from(b, (configs) => configs?.map((c) => c.tokenType.name) ?? null)]),
  );
}

const report = {};
report.tablesPresent = tables !== undefined;
report.tablesEqualComputed = same(tables, computeTables());

const fast = { lexer: createLexer("auto"), parser: new PatchworkParser({ analysis: "auto" }) };
const full = { lexer: createLexer("full"), parser: new PatchworkParser({ analysis: "full" }) };
report.fastRecordedRules = recorded(fast.parser);
report.fullRecordedRules = recorded(full.parser);
report.lexerBucketsEqual = same(buckets(fast.lexer), buckets(full.lexer));
report.lexerStateEqual = ["canModeBeOptimized", "hasCustom", "emptyGroups", "modes", "defaultMode"].every((k) => same(fast.lexer[k], full.lexer[k]));
const hinted = Object.keys(tables?.lexer.startBuckets ?? {});
report.hintedTokens = hinted.length;
report.hintsLeftOnTokens = allTokens.filter((t) => hinted.includes(t.name) && t.START_CHARS_HINT !== undefined).map((t) => t.name);
report.lookaheadKeysEqual = same(cacheKeys(fast.parser), cacheKeys(full.parser));
report.lookaheadDecisions = cacheKeys(fast.parser).length;

/** Tokens, AST, comments and diagnostics of `source`, as one comparable string. */
function outcome(engine, source) {
  const lexed = tokenize(source, engine.lexer);
  const r = parseWith(engine, source, { fileName: "t.pw" });
  return JSON.stringify({
    tokens: lexed.tokens.map((t) => [t.tokenType.name, t.startOffset, t.image]),
    lexErrors: lexed.errors,
    comments: r.comments,
    program: r.program,
    diagnostics: r.diagnostics,
    recoveredToEnd: r.recoveredToEnd,
  });
}

/** `outcome` by the bare copy's own `parse` (its process-wide lexer and parser). */
function bareOutcome(source) {
  const lexed = bare.tokenize(source);
  const r = bare.parseWith(undefined, source, { fileName: "t.pw" });
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
  const a = outcome(fast, source);
  const b = outcome(full, source);
  report.compared++;
  if (JSON.parse(b).diagnostics.some((d) => d.severity === "error")) report.withErrors++;
  if (a !== b && report.mismatches.length < 3) report.mismatches.push({ source, fromTables: a, full: b });
  if (a !== bareOutcome(source) && report.bareMismatches.length < 3) report.bareMismatches.push(source);
}
report.bareTablesPresent = bare.tables !== undefined;
report.bareHasInternals = bare.chevrotain.chevrotainInternals !== undefined;
report.bareRecordedRules = recorded(bare.getParser());
// Its grammar, recorded on request (by a parser of its own: its own cache stays empty).
report.fastRecordedRulesAfter = recorded(fast.parser);
report.grammarRecordedOnRequest = same(fast.parser.getSerializedGastProductions(), full.parser.getSerializedGastProductions());

// Tables that do not match the parser's code are not used.
class Changed extends PatchworkParser {}
report.changedFingerprintDiffers = parserFingerprint(Changed, allTokens) !== parserFingerprint(PatchworkParser, allTokens);
report.changedRecordedRules = recorded(new Changed());

// PATCHWORK_VALIDATE_GRAMMAR=1: the full analysis, with validations.
process.env.PATCHWORK_VALIDATE_GRAMMAR = "1";
const validated = new PatchworkParser();
report.validateRecordedRules = recorded(validated);
report.validateSkipsValidations = validated.skipValidations;

console.log(JSON.stringify(report));
