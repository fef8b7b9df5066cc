/**
 * The parser package's stable diagnostic codes (docs/errors/parse.md), in a module of their own
 * so that code that loads no parser (the Threadbare loader, `@patchwork/parser/core`) can name them.
 */
export const Codes = {
  singleQuoted: "PW1001",
  unterminatedString: "PW1002",
  unexpectedCharacter: "PW1003",
  unclosedPrompt: "PW1004",
  unbalancedPromptBrace: "PW1005",
  unterminatedShell: "PW1006",
  syntax: "PW2001",
  assignInCondition: "PW2002",
  syntaxInDo: "PW2003",
  invalidTarget: "PW2004",
  missingSeparator: "PW2005",
  unexpectedToken: "PW2006",
  tooDeep: "PW2007",
  bareCommand: "PW2008",
  formatterComment: "PW2009",
  javascriptHabit: "PW2010",
  shellContext: "PW2020",
  mainNotRun: "PW2030",
  jsonSyntax: "PW2101",
  threadbareShape: "PW2102",
} as const;

export type Code = (typeof Codes)[keyof typeof Codes];
