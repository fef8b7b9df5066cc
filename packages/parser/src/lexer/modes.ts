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
 * | shell_cap_nested    | `(` in a shell capture                      | `)`                          |
 * | shell_dq            | `"` in a shell word                         | `"`                          |
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
const shellWordParts = [
  T.ShellEscape, T.ShellSQ, T.ShellSQOpen, T.ShellDQStart, T.ShellBacktick, T.ShellBacktickOpen, T.ShellDollarParen,
  T.ShellDollarParenOpen,
  T.ShellParamExpansion, T.InterpName, T.InterpOpen, T.SpreadOpen, T.Dollar,
];
const shellOperators = [
  T.ShellAndAnd, T.ShellOrOr, T.ShellPipe, T.ShellSemi, T.ShellRedirDup, T.ShellRedirAll,
  T.ShellRedirAppend, T.ShellRedirOut, T.ShellRedirIn, T.ShellAmp,
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
    shell_dq: [T.ShellDQText, T.ShellEscape, T.ShellParamExpansion, T.InterpName, T.InterpOpen, T.SpreadOpen, T.Dollar, T.ShellDQEnd],
  },
};
