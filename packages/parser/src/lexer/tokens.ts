/**
 * Token types of Patchwork. Which token belongs to which lexer mode, and which tokens push
 * or pop a mode, is declared in `modes.ts`; custom matchers live in `matchers.ts`.
 *
 * Keywords are not matched by the lexer: identifiers are retagged after lexing (one Map
 * lookup instead of a regex per keyword), see `lexer.ts`.
 */
import { createToken, Lexer, type TokenType, type ITokenConfig } from "../chevrotain.js";
import {
  matchNewline,
  matchPromptDo,
  matchPromptDoAngle,
  matchShellArithOpen,
  matchShellBQOpen,
  matchShellRBrace,
  matchShellSubOpen,
  runUntil,
  startCharsExcept,
} from "./matchers.js";

export const allTokens: TokenType[] = [];

function tok(config: ITokenConfig): TokenType {
  const t = createToken(config);
  allTokens.push(t);
  return t;
}
/** A text token: a run of characters up to one of `stops` (see `runUntil`). */
function run(name: string, label: string, stops: string): TokenType {
  return tok({ name, label, pattern: { exec: runUntil(stops) }, start_chars_hint: startCharsExcept(stops), line_breaks: stops.indexOf("\n") < 0 });
}
function cat(name: string, label?: string): TokenType {
  return tok(label ? { name, pattern: Lexer.NA, label } : { name, pattern: Lexer.NA });
}

// ── categories ──
/** Identifiers and keywords: what may follow `.` or stand as an object key. */
export const AnyName = cat("AnyName", "a name");
/** Binary operators (including `=` and `...`), folded by precedence in the parser. */
export const BinOp = cat("BinOp", "an operator");
export const ShellLineStart = cat("ShellLineStart", "'$ '");
export const ShellLineEnd = cat("ShellLineEnd", "end of the shell line");
export const ShellSpace = cat("ShellSpace", "space");

// ── trivia and newlines ──
export const WhiteSpace = tok({ name: "WhiteSpace", pattern: /[ \t\f\uFEFF]+/, group: Lexer.SKIPPED });
/**
 * A comment to the end of the line, in code: `# …` or `// …` (the reference grammars know
 * `#`, its books write `//`). One token type for both spellings, so every tool (the
 * formatter keeps comments) treats them alike. Strings, prompt text and shell words have no
 * comments: their modes do not contain this token (`$ curl http://x` keeps its URL).
 * Comments are kept in the lexer's "comments" group (not skipped), so the formatter and the
 * language server can see them; the parser never does.
 */
export const Comment = tok({ name: "Comment", pattern: /(?:#|\/\/)[^\n\r]*/, start_chars_hint: ["#", "/"], group: "comments" });
export const NL = tok({
  name: "NL",
  label: "a newline",
  pattern: { exec: matchNewline },
  line_breaks: true,
  start_chars_hint: ["\n", "\r"],
});
export const NLSkip = tok({ name: "NLSkip", pattern: /\r?\n|\r/, group: Lexer.SKIPPED, line_breaks: true });

// ── literals and names ──
export const NumberTok = tok({ name: "Number", label: "a number", pattern: /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/ });
export const Ident = tok({ name: "Ident", label: "an identifier", pattern: /[A-Za-z_][A-Za-z0-9_]*/, categories: [AnyName] });
export const SQString = tok({ name: "SQString", label: "a single-quoted string", pattern: /'(?:[^'\\\n\r]|\\.)*'?/ });
export const StrStart = tok({ name: "StrStart", label: "'\"'", pattern: /"/, push_mode: "string" });

// ── think / ask openers (the keyword and its delimiter are one token: it switches mode) ──
export const ThinkOpen = tok({ name: "ThinkOpen", label: "'think {'", pattern: /think[ \t]*\{/, push_mode: "prompt" });
export const ThinkAngleOpen = tok({ name: "ThinkAngleOpen", label: "'think <'", pattern: /think[ \t]*</, push_mode: "prompt_angle" });
export const AskOpen = tok({ name: "AskOpen", label: "'ask {'", pattern: /ask[ \t]*\{/, push_mode: "prompt" });
export const AskAngleOpen = tok({ name: "AskAngleOpen", label: "'ask <'", pattern: /ask[ \t]*</, push_mode: "prompt_angle" });

// ── shell openers in code ──
/**
 * `$ cmd` — or `$cmd`, the `$` right before a command's first character — runs to the end of
 * the line, as a statement or an expression (`var files = $ls -1 src/`).
 */
const shellLineStart = /\$(?:[ \t]+|(?=[A-Za-z0-9_.\/~]))/;
/** `$ ` in a block: the shell line replaces the block's mode until the end of the line. */
export const ShellLineStartCode = tok({ name: "ShellLineStartCode", label: "'$ '", pattern: shellLineStart, pop_mode: true, push_mode: "shell_line", categories: [ShellLineStart] });
/** `$ ` at top level or in an angle-delimited `do < … >` block: ends at the newline only. */
export const ShellLineStartPlain = tok({ name: "ShellLineStartPlain", label: "'$ '", pattern: shellLineStart, push_mode: "shell_line_plain", categories: [ShellLineStart] });
export const ShellCapOpen = tok({ name: "ShellCapOpen", label: "'$('", pattern: /\$\(/, push_mode: "shell_cap" });
export const ShellParenOpen = tok({ name: "ShellParenOpen", label: "'($ '", pattern: /\(\$[ \t\r\n]+/, push_mode: "shell_cap", line_breaks: true });
export const ShellStatus = tok({ name: "ShellStatus", label: "'$?'", pattern: /\$\?/ });

// ── punctuation ──
export const Range = tok({ name: "Range", label: "'...'", pattern: /\.\.\./, categories: [BinOp] });
export const Dot = tok({ name: "Dot", label: "'.'", pattern: /\./ });
export const EqEq = tok({ name: "EqEq", label: "'=='", pattern: /==/, categories: [BinOp] });
export const NotEq = tok({ name: "NotEq", label: "'!='", pattern: /!=/, categories: [BinOp] });
export const LtEq = tok({ name: "LtEq", label: "'<='", pattern: /<=/, categories: [BinOp] });
export const GtEq = tok({ name: "GtEq", label: "'>='", pattern: />=/, categories: [BinOp] });
export const AndAnd = tok({ name: "AndAnd", label: "'&&'", pattern: /&&/, categories: [BinOp] });
export const OrOr = tok({ name: "OrOr", label: "'||'", pattern: /\|\|/, categories: [BinOp] });
export const PlusPlus = tok({ name: "PlusPlus", label: "'++'", pattern: /\+\+/ });
export const MinusMinus = tok({ name: "MinusMinus", label: "'--'", pattern: /--/ });
export const Assign = tok({ name: "Assign", label: "'='", pattern: /=/, categories: [BinOp] });
export const Lt = tok({ name: "Lt", label: "'<'", pattern: /</, categories: [BinOp] });
export const Gt = tok({ name: "Gt", label: "'>'", pattern: />/, categories: [BinOp] });
export const Plus = tok({ name: "Plus", label: "'+'", pattern: /\+/, categories: [BinOp] });
export const Minus = tok({ name: "Minus", label: "'-'", pattern: /-/, categories: [BinOp] });
export const Star = tok({ name: "Star", label: "'*'", pattern: /\*/, categories: [BinOp] });
export const Slash = tok({ name: "Slash", label: "'/'", pattern: /\//, categories: [BinOp] });
export const Percent = tok({ name: "Percent", label: "'%'", pattern: /%/, categories: [BinOp] });
export const Bang = tok({ name: "Bang", label: "'!'", pattern: /!/ });
export const Colon = tok({ name: "Colon", label: "':'", pattern: /:/ });
export const Comma = tok({ name: "Comma", label: "','", pattern: /,/ });
export const Semi = tok({ name: "Semi", label: "';'", pattern: /;/ });
export const At = tok({ name: "At", label: "'@'", pattern: /@/ });
export const Pipe = tok({ name: "Pipe", label: "'|'", pattern: /\|/ });
export const LParen = tok({ name: "LParen", label: "'('", pattern: /\(/, push_mode: "group" });
export const RParen = tok({ name: "RParen", label: "')'", pattern: /\)/, pop_mode: true });
export const LBracket = tok({ name: "LBracket", label: "'['", pattern: /\[/, push_mode: "group" });
export const RBracket = tok({ name: "RBracket", label: "']'", pattern: /\]/, pop_mode: true });
export const LBrace = tok({ name: "LBrace", label: "'{'", pattern: /\{/, push_mode: "code" });
export const RBrace = tok({ name: "RBrace", label: "'}'", pattern: /\}/, pop_mode: true });
/** `>` closing an angle-delimited prompt, `do < … >` block or `$<…>` interpolation. */
export const AngleClose = tok({ name: "AngleClose", label: "'>'", pattern: />/, pop_mode: true });

// ── interpolation (strings, prompt text, shell words) ──
export const CharLit = tok({ name: "CharLit", label: "$'c'", pattern: /\$'(?:[\uD800-\uDBFF][\uDC00-\uDFFF]|[^\n\r])'/ });
export const InterpName = tok({ name: "InterpName", label: "'$name'", pattern: /\$[A-Za-z_][A-Za-z0-9_]*/ });
export const InterpOpen = tok({ name: "InterpOpen", label: "'${'", pattern: /\$\{/, push_mode: "group" });
export const SpreadOpen = tok({ name: "SpreadOpen", label: "'$@{'", pattern: /\$@\{/, push_mode: "group" });
export const InterpAngleOpen = tok({ name: "InterpAngleOpen", label: "'$<'", pattern: /\$</, push_mode: "angle_group" });
export const SpreadAngleOpen = tok({ name: "SpreadAngleOpen", label: "'$@<'", pattern: /\$@</, push_mode: "angle_group" });
export const Dollar = tok({ name: "Dollar", label: "'$'", pattern: /\$/ });

// ── strings ──
export const StrText = run("StrText", "string text", '"\\$');
export const StrEscape = tok({ name: "StrEscape", label: "an escape", pattern: /\\[\s\S]/, line_breaks: true });
export const StrEnd = tok({ name: "StrEnd", label: "'\"'", pattern: /"/, pop_mode: true });

// ── prompt text ──
export const PromptNL = tok({ name: "PromptNL", label: "prompt text", pattern: /\n[ \t]*/, line_breaks: true });
export const PromptDo = tok({ name: "PromptDo", label: "'do {'", pattern: { exec: matchPromptDo }, start_chars_hint: ["d"], line_breaks: false, push_mode: "code" });
export const PromptDoAngle = tok({ name: "PromptDoAngle", label: "'do <'", pattern: { exec: matchPromptDoAngle }, start_chars_hint: ["d"], line_breaks: false, push_mode: "angle_code" });
export const PromptText = run("PromptText", "prompt text", "{}$\n\\");
export const PromptAngleText = run("PromptAngleText", "prompt text", "<>$\n\\");
/** `\$`, `\{`, `\}` (and `\<`, `\>`) in prompt text: the character itself. */
export const PromptEscape = tok({ name: "PromptEscape", label: "an escape", pattern: /\\[{}<>$]/ });
export const Backslash = tok({ name: "Backslash", label: "prompt text", pattern: /\\/ });
export const PromptLBrace = tok({ name: "PromptLBrace", label: "'{'", pattern: /\{/, push_mode: "prompt_nested" });
export const PromptRBrace = tok({ name: "PromptRBrace", label: "'}'", pattern: /\}/, pop_mode: true });
export const PromptLAngle = tok({ name: "PromptLAngle", label: "'<'", pattern: /</, push_mode: "prompt_angle_nested" });
export const PromptRAngle = tok({ name: "PromptRAngle", label: "'>'", pattern: />/, pop_mode: true });

// ── shell ──
export const ShellBlank = tok({ name: "ShellBlank", label: "space", pattern: /[ \t]+/, categories: [ShellSpace] });
export const ShellBlankNL = tok({ name: "ShellBlankNL", label: "space", pattern: /[ \t\r\n]+/, line_breaks: true, categories: [ShellSpace] });
export const ShellLineEndCode = tok({ name: "ShellLineEndCode", label: "end of line", pattern: /\r?\n|\r/, line_breaks: true, pop_mode: true, push_mode: "code", categories: [ShellLineEnd] });
export const ShellLineEndPlain = tok({ name: "ShellLineEndPlain", label: "end of line", pattern: /\r?\n|\r/, line_breaks: true, pop_mode: true, categories: [ShellLineEnd] });
/** A standalone `}` word closing the block a `$ ` line stands in. */
export const ShellRBrace = tok({ name: "ShellRBrace", label: "'}'", pattern: { exec: matchShellRBrace }, start_chars_hint: ["}"], line_breaks: false, pop_mode: true, categories: [RBrace] });
export const ShellAndAnd = tok({ name: "ShellAndAnd", label: "'&&'", pattern: /&&/ });
export const ShellOrOr = tok({ name: "ShellOrOr", label: "'||'", pattern: /\|\|/ });
export const ShellPipe = tok({ name: "ShellPipe", label: "'|'", pattern: /\|/ });
export const ShellSemi = tok({ name: "ShellSemi", label: "';'", pattern: /;/ });
export const ShellRedirDup = tok({ name: "ShellRedirDup", label: "a redirect", pattern: /[0-9]*>&[0-9]+/ });
export const ShellRedirAll = tok({ name: "ShellRedirAll", label: "a redirect", pattern: /&>/ });
export const ShellRedirAppend = tok({ name: "ShellRedirAppend", label: "a redirect", pattern: /[0-9]*>>/ });
export const ShellRedirOut = tok({ name: "ShellRedirOut", label: "a redirect", pattern: /[0-9]*>/ });
/** `<<` / `<<<`: heredocs and here-strings, which Patchwork does not have (reported). */
export const ShellHeredoc = tok({ name: "ShellHeredoc", label: "'<<'", pattern: /[0-9]*<<<?-?/ });
export const ShellRedirIn = tok({ name: "ShellRedirIn", label: "a redirect", pattern: /[0-9]*</ });
export const ShellWordText = run("ShellWordText", "a shell word", " \t\n\r\f\v|&;<>()$\"'\\`");
export const ShellAmp = tok({ name: "ShellAmp", label: "'&'", pattern: /&/ });
export const ShellEscape = tok({ name: "ShellEscape", label: "a shell word", pattern: /\\[\s\S]/, line_breaks: true });
export const ShellSQ = tok({ name: "ShellSQ", label: "a quoted word", pattern: /'[^'\n\r]*'/ });
export const ShellSQOpen = tok({ name: "ShellSQOpen", label: "an unterminated quote", pattern: /'[^'\n\r]*/ });
/**
 * sh's own parameter expansions that cannot be Patchwork (`${#x}`, `${x:-d}`, `${x##p}`…):
 * raw text, passed to sh as written. A plain `${x}` is a Patchwork interpolation.
 */
export const ShellParamExpansion = tok({ name: "ShellParamExpansion", label: "a shell word", pattern: /\$\{(?:#[A-Za-z0-9_@*]+|[A-Za-z_][A-Za-z0-9_]*(?::[-=?+]|##|%%)[^}\n]*)\}/ });
export const ShellParenChar = tok({ name: "ShellParenChar", label: "a shell word", pattern: /[()]/ });
export const ShellLParen = tok({ name: "ShellLParen", label: "'('", pattern: /\(/, push_mode: "shell_cap_nested" });
export const ShellRParen = tok({ name: "ShellRParen", label: "')'", pattern: /\)/, pop_mode: true });
export const ShellDQStart = tok({ name: "ShellDQStart", label: "'\"'", pattern: /"/, push_mode: "shell_dq" });
export const ShellDQText = run("ShellDQText", "a shell word", '"\\$`');
export const ShellDQEnd = tok({ name: "ShellDQEnd", label: "'\"'", pattern: /"/, pop_mode: true });
/**
 * Nested commands inside shell words. Their text is lexed like any command (not kept as one
 * raw token), so that an interpolation inside them knows the quoting context it lands in.
 * `$(( … ))` is arithmetic; `$( … )` and backquotes are command substitutions.
 */
export const ShellArithOpen = tok({ name: "ShellArithOpen", label: "'$(('", pattern: { exec: matchShellArithOpen }, start_chars_hint: ["$"], line_breaks: false, push_mode: "shell_arith" });
export const ShellSubOpen = tok({ name: "ShellSubOpen", label: "'$('", pattern: { exec: matchShellSubOpen }, start_chars_hint: ["$"], line_breaks: false, push_mode: "shell_cap_nested" });
/** A `$(` in a shell word that no `)` closes (reported, then read as text). */
export const ShellDollarParenOpen = tok({ name: "ShellDollarParenOpen", label: "'$('", pattern: /\$\(/ });
/** A backquote that no other closes (reported, then read as text). */
export const ShellBacktickOpen = tok({ name: "ShellBacktickOpen", label: "'`'", pattern: /`/ });
export const ShellArithClose = tok({ name: "ShellArithClose", label: "'))'", pattern: /\)\)/, pop_mode: true });
export const ShellArithLParen = tok({ name: "ShellArithLParen", label: "'('", pattern: /\(/, push_mode: "shell_arith_nested" });
export const ShellArithText = run("ShellArithText", "arithmetic", " \t\n\r$()`");
/** A backquote opening a command substitution: in a bare word, or inside double quotes. */
export const ShellBQOpen = tok({ name: "ShellBQOpen", label: "'`'", pattern: { exec: matchShellBQOpen }, start_chars_hint: ["`"], line_breaks: false, push_mode: "shell_bq" });
export const ShellBQOpenDQ = tok({ name: "ShellBQOpenDQ", label: "'`'", pattern: { exec: matchShellBQOpen }, start_chars_hint: ["`"], line_breaks: false, push_mode: "shell_bq_dq" });
export const ShellBQClose = tok({ name: "ShellBQClose", label: "'`'", pattern: /`/, pop_mode: true });
/** Single quotes inside backquotes: sh ends the backquotes at the first backquote, even inside them. */
export const ShellBQSQ = tok({ name: "ShellBQSQ", label: "a quoted word", pattern: /'[^'`]*'/, line_breaks: true });
export const ShellBQSQOpen = tok({ name: "ShellBQSQOpen", label: "an unterminated quote", pattern: /'[^'`]*/, line_breaks: true });
/** Double quotes inside backquotes (`\"` too when the backquotes stand in double quotes). */
export const ShellBQDQOpen = tok({ name: "ShellBQDQOpen", label: "'\"'", pattern: /"/, push_mode: "shell_bq_q" });
export const ShellBQDQOpenEsc = tok({ name: "ShellBQDQOpenEsc", label: "'\"'", pattern: /\\"|"/, push_mode: "shell_bq_dq_q" });
export const ShellBQDQClose = tok({ name: "ShellBQDQClose", label: "'\"'", pattern: /"/, pop_mode: true });
export const ShellBQDQCloseEsc = tok({ name: "ShellBQDQCloseEsc", label: "'\"'", pattern: /\\"|"/, pop_mode: true });
export const ShellBQDQText = run("ShellBQDQText", "a shell word", '"\\$`');
/** An unescaped backquote inside double quotes inside backquotes: sh would end the backquotes there. */
export const ShellBQInDQ = tok({ name: "ShellBQInDQ", label: "'`'", pattern: /`/ });

// ── keywords (retagged from identifiers after lexing) ──
function kw(word: string): TokenType {
  return tok({ name: "Kw_" + word, label: `'${word}'`, pattern: Lexer.NA, categories: [AnyName] });
}
export const Var = kw("var");
export const If = kw("if");
export const Else = kw("else");
export const For = kw("for");
export const While = kw("while");
export const In = kw("in");
export const Return = kw("return");
export const Break = kw("break");
export const Continue = kw("continue");
export const Succeed = kw("succeed");
export const Throw = kw("throw");
export const Try = kw("try");
export const Catch = kw("catch");
export const Fun = kw("fun");
export const Worker = kw("worker");
export const Skill = kw("skill");
export const Task = kw("task");
export const Trait = kw("trait");
export const Type = kw("type");
export const Import = kw("import");
export const Export = kw("export");
export const Default = kw("default");
export const From = kw("from");
export const Think = kw("think");
export const Ask = kw("ask");
export const True = kw("true");
export const False = kw("false");
export const Null = kw("null");
export const Self = kw("self");
export const Await = kw("await");

/** Keywords by spelling (`task` is contextual and handled separately). */
export const KEYWORDS = new Map<string, TokenType>(
  [Var, If, Else, For, While, In, Return, Break, Continue, Succeed, Throw, Try, Catch, Fun, Worker,
    Skill, Trait, Type, Import, Export, Default, From, Think, Ask, True, False, Null, Self, Await]
    .map((t) => [t.name.slice(3), t]),
);
