/**
 * The lexer modes, as data. Each mode is the ordered list of tokens tried in it (first match
 * wins); a token's `push_mode` / `pop_mode` (see tokens.ts) moves between modes, so nesting
 * of braces, prompts, strings and shell words is tracked by the lexer's mode stack.
 *
 * | mode                | entered by                                  | left by                      |
 * |---------------------|---------------------------------------------|------------------------------|
 * | program             | start of input                              | (never)                      |
 * | code                | `{`, `do {`                                 | `}`                          |
 * | group               | `(`, `[`, `${`, `$@{` (newlines ignored)     | `)`, `]`, `}`                |
 * | angle_code          | `do <`                                      | `>`                          |
 * | angle_group         | `$<`, `$@<`                                 | `>`                          |
 * | string              | `"`                                         | `"`                          |
 * | prompt              | `think {`, `ask {`                          | `}`                          |
 * | prompt_nested       | `{` in prompt text                          | `}`                          |
 * | prompt_angle        | `think <`, `ask <`                          | `>`                          |
 * | prompt_angle_nested | `<` in angle prompt text                    | `>`                          |
 * | shell_line          | `$ ` in code (replaces the block's mode)    | newline (back to code), `}`  |
 * | shell_line_plain    | `$ ` in `do < … >`                          | newline                      |
 * | shell_cap           | `$(`, `($ `                                 | `)`                          |
 * | shell_cap_nested    | `(` in a shell capture, `$(` in a shell word  | `)`                          |
 * | shell_dq            | `"` in a shell word                         | `"`                          |
 * | shell_arith         | `$((` in a shell word                       | `))`                         |
 * | shell_arith_nested  | `(` in arithmetic                           | `)`                          |
 * | shell_bq            | `` ` `` in a bare shell word                | `` ` ``                      |
 * | shell_bq_dq         | `` ` `` inside shell double quotes          | `` ` ``                      |
 * | shell_bq_q          | `"` inside shell_bq                         | `"`                          |
 * | shell_bq_dq_q       | `"` or `\"` inside shell_bq_dq              | `"` or `\"`                  |
 *
 * The shell modes follow sh's own quoting structure, so that the parser knows the context
 * (bare, double-quoted, arithmetic) in which each interpolated value lands (see shellRules.ts).
 */
import type { IMultiModeLexerDefinition, TokenType } from "../chevrotain.js";
import * as T from "./tokens.js";

const trivia = [T.WhiteSpace, T.Comment];
const literals = [T.NumberTok, T.StrStart, T.SQString, T.ThinkOpen, T.ThinkAngleOpen, T.AskOpen, T.AskAngleOpen];
const shellOpeners = [T.ShellStatus, T.ShellCapOpen, T.ShellParenOpen];
const punctuation = [
  T.Range, T.Dot, T.EqEq, T.NotEq, T.LtEq, T.AndAnd, T.OrOr, T.PlusPlus, T.MinusMinus, T.Assign,
  T.Lt, T.Plus, T.Minus, T.Star, T.Slash, T.Percent, T.Bang, T.Colon, T.Comma, T.Semi, T.At,
  T.Pipe, T.LParen, T.RParen, T.LBracket, T.RBracket, T.LBrace, T.RBrace,
];
const gt = [T.GtEq, T.Gt];

function codeMode(opts: { newlines: boolean; shellLine: TokenType | null; angle: boolean }): TokenType[] {
  return [
    ...trivia,
    ...(opts.newlines ? [T.NL, T.NLSkip] : [T.NLSkip]),
    ...literals,
    ...(opts.shellLine ? [opts.shellLine] : []),
    ...shellOpeners,
    T.Ident,
    ...punctuation,
    ...(opts.angle ? [T.AngleClose] : gt),
  ];
}

const interpolation = [T.CharLit, T.InterpName, T.InterpOpen, T.SpreadOpen, T.InterpAngleOpen, T.SpreadAngleOpen, T.Dollar];
const promptCommon = [T.PromptNL, T.PromptDo, T.PromptDoAngle, T.PromptEscape, T.Backslash, ...interpolation];
/** What may follow `$` in any shell context: nested commands, sh's and Patchwork's expansions. */
const shellDollar = [
  T.ShellArithOpen, T.ShellSubOpen, T.ShellDollarParenOpen, T.ShellParamExpansion, T.InterpName, T.InterpOpen,
  T.SpreadOpen, T.Dollar,
];
const shellWordParts = [T.ShellEscape, T.ShellSQ, T.ShellSQOpen, T.ShellDQStart, T.ShellBQOpen, T.ShellBacktickOpen, ...shellDollar];
/** Inside backquotes: quotes end at the closing backquote too. */
const shellBQWordParts = [T.ShellEscape, T.ShellBQSQ, T.ShellBQSQOpen, ...shellDollar];
const shellOperators = [
  T.ShellAndAnd, T.ShellOrOr, T.ShellPipe, T.ShellSemi, T.ShellRedirDup, T.ShellRedirAll,
  T.ShellRedirAppend, T.ShellRedirOut, T.ShellHeredoc, T.ShellRedirIn, T.ShellAmp,
];

export const lexerDefinition: IMultiModeLexerDefinition = {
  defaultMode: "program",
  modes: {
    program: codeMode({ newlines: true, shellLine: T.ShellLineStartPlain, angle: false }),
    code: codeMode({ newlines: true, shellLine: T.ShellLineStartCode, angle: false }),
    group: codeMode({ newlines: false, shellLine: null, angle: false }),
    angle_code: codeMode({ newlines: true, shellLine: T.ShellLineStartPlain, angle: true }),
    angle_group: codeMode({ newlines: false, shellLine: null, angle: true }),
    string: [T.StrText, T.StrEscape, ...interpolation, T.StrEnd],
    prompt: [...promptCommon, T.PromptText, T.PromptLBrace, T.RBrace],
    prompt_nested: [...promptCommon, T.PromptText, T.PromptLBrace, T.PromptRBrace],
    prompt_angle: [...promptCommon, T.PromptAngleText, T.PromptLAngle, T.AngleClose],
    prompt_angle_nested: [...promptCommon, T.PromptAngleText, T.PromptLAngle, T.PromptRAngle],
    shell_line: [T.ShellBlank, T.ShellLineEndCode, T.ShellRBrace, ...shellOperators, ...shellWordParts, T.ShellWordText, T.ShellParenChar],
    shell_line_plain: [T.ShellBlank, T.ShellLineEndPlain, ...shellOperators, ...shellWordParts, T.ShellWordText, T.ShellParenChar],
    shell_cap: [T.ShellBlankNL, ...shellOperators, ...shellWordParts, T.ShellWordText, T.ShellLParen, T.RParen],
    shell_cap_nested: [T.ShellBlankNL, ...shellOperators, ...shellWordParts, T.ShellWordText, T.ShellLParen, T.ShellRParen],
    shell_dq: [T.ShellDQText, T.ShellEscape, T.ShellBQOpenDQ, T.ShellBacktickOpen, ...shellDollar, T.ShellDQEnd],
    shell_arith: [T.ShellBlankNL, T.ShellArithClose, T.ShellArithLParen, T.ShellBQOpen, T.ShellBacktickOpen, ...shellDollar, T.ShellArithText],
    shell_arith_nested: [T.ShellBlankNL, T.ShellRParen, T.ShellArithLParen, T.ShellBQOpen, T.ShellBacktickOpen, ...shellDollar, T.ShellArithText],
    shell_bq: [T.ShellBQClose, T.ShellBlankNL, ...shellOperators, T.ShellBQDQOpen, ...shellBQWordParts, T.ShellWordText, T.ShellParenChar],
    shell_bq_dq: [T.ShellBQClose, T.ShellBlankNL, ...shellOperators, T.ShellBQDQOpenEsc, ...shellBQWordParts, T.ShellWordText, T.ShellParenChar],
    shell_bq_q: [T.ShellBQDQClose, T.ShellBQDQText, T.ShellEscape, T.ShellBQInDQ, ...shellDollar],
    shell_bq_dq_q: [T.ShellBQDQCloseEsc, T.ShellBQDQText, T.ShellEscape, T.ShellBQInDQ, ...shellDollar],
  },
};
