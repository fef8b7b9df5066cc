/** The Patchwork lexer: Chevrotain over the modes of `modes.ts`, plus keyword retagging. */
import { Lexer, type IMultiModeLexerDefinition, type IToken, type ILexingError, type TokenType } from "../chevrotain.js";
import { lexerFromTables, lexerTables } from "../precomputed.js";
import { continuesLine, resetShellParenScans } from "./matchers.js";
import { lexerDefinition } from "./modes.js";
import * as T from "./tokens.js";

for (const t of [
  T.NL, T.BinOp, T.Range, T.EqEq, T.NotEq, T.LtEq, T.GtEq, T.AndAnd, T.OrOr, T.Assign, T.Lt, T.Gt,
  T.Plus, T.Minus, T.Star, T.Slash, T.Percent, T.Bang, T.Comma, T.Colon, T.Pipe, T.LParen,
  T.LBracket, T.LBrace, T.Dot, T.ShellLineEndCode, T.ShellLineEndPlain, T.Semi,
]) {
  continuesLine[t.tokenTypeIdx!] = true;
}

/**
 * Nesting role of each token type, derived from the mode declarations: +1 opens (pushes a
 * mode), -1 closes (pops), 0 otherwise (a pop-and-push switches mode in place). Error
 * recovery uses it to skip a broken statement without losing track of nesting.
 */
export const nestingRole: number[] = [];
for (const t of T.allTokens) {
  const push = t.PUSH_MODE !== undefined;
  const pop = t.POP_MODE === true;
  nestingRole[t.tokenTypeIdx!] = push && !pop ? 1 : pop && !push ? -1 : 0;
}

let lexer: Lexer | undefined;

/**
 * The lexer: with `analysis: "auto"`, its analysis of every mode (each pattern's configuration,
 * the first-character buckets) comes from the build's tables when they match these token types
 * and modes (docs/decisions/0011-precomputed-grammar-analysis.md); `full` is Chevrotain's own.
 */
export function createLexer(analysis: "auto" | "full" = "auto"): Lexer {
  const build = (definition: IMultiModeLexerDefinition): Lexer =>
    new Lexer(definition, {
      positionTracking: "onlyOffset",
      ensureOptimizations: true,
      skipValidations: true,
    });
  const table = analysis === "auto" ? lexerTables(T.allTokens, lexerDefinition) : undefined;
  return (table && lexerFromTables(table, lexerDefinition, T.NL, build)) ?? build(lexerDefinition);
}

function getLexer(): Lexer {
  lexer ??= createLexer();
  return lexer;
}

export interface LexResult {
  tokens: IToken[];
  errors: ILexingError[];
  /** Comment tokens (every token of the lexer's "comments" group), in source order. */
  comments: IToken[];
}

const identIdx = T.Ident.tokenTypeIdx!;

function retag(token: IToken, type: TokenType): void {
  token.tokenType = type;
  token.tokenTypeIdx = type.tokenTypeIdx!;
}

/** Tokenize `text`: never throws; lexing errors are returned. */
export function tokenize(text: string, using: Lexer = getLexer()): LexResult {
  resetShellParenScans();
  const result = using.tokenize(text);
  resetShellParenScans();
  const tokens = result.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.tokenTypeIdx !== identIdx) continue;
    const kw = T.KEYWORDS.get(t.image);
    if (kw !== undefined) retag(t, kw);
    else if (t.image === "task" && tokens[i + 1]?.tokenTypeIdx === identIdx) retag(t, T.Task);
  }
  return { tokens, errors: result.errors, comments: result.groups["comments"] ?? [] };
}

/** Validate the lexer definition (used by tests; production skips validations). */
export function validateLexer(): string[] {
  const l = new Lexer(lexerDefinition, { positionTracking: "onlyOffset", ensureOptimizations: true });
  return l.lexerDefinitionErrors.map((e) => e.message);
}
