/**
 * Diagnostic codes and the wording of parse errors: the one place that knows how errors are
 * phrased (Chevrotain's error provider points here too).
 */
import { EOF, type IParserErrorMessageProvider, type IToken, type TokenType } from "../chevrotain.js";

export { Codes, type Code } from "../codes.js";

/** How a token is shown in a message: `'image'`, "a newline" or "end of input". */
export function describeToken(token: IToken): string {
  if (token.tokenType === EOF) return "end of input";
  const image = token.image;
  if (/^\r?\n[ \t]*$/.test(image) || image === "\r") return "a newline";
  if (image.length === 0) return token.tokenType.LABEL ?? token.tokenType.name;
  const shown = image.length > 24 ? image.slice(0, 24) + "…" : image;
  return `'${shown.replace(/\n/g, "\\n")}'`;
}

export function describeType(type: TokenType): string {
  return type.LABEL ?? type.name;
}

const ruleWhat: Record<string, string> = {
  primary: "an expression",
  unary: "an expression",
  expression: "an expression",
  condition: "an expression",
  statement: "a statement",
  topLevel: "an item or a statement",
  typeAtom: "a type",
  typeExpr: "a type",
  pattern: "a pattern (a name, {…} or […])",
  shellWordPart: "a shell word",
  shellWord: "a shell word",
  shellCommand: "a shell command",
  shellItem: "a shell word or redirect",
  funFlavor: "'fun', 'worker', 'skill' or 'task'",
  promptPart: "prompt text",
  propertyKey: "a property name",
};

function firstTokens(paths: TokenType[][]): string {
  const names = new Set<string>();
  for (const p of paths) if (p[0]) names.add(describeType(p[0]));
  const list = [...names];
  if (list.length <= 1) return list[0] ?? "something else";
  if (list.length > 6) return list.slice(0, 6).join(", ") + ", …";
  return "one of " + list.join(", ");
}

export const errorMessages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual }) {
    return `expected ${describeType(expected)} but found ${describeToken(actual)}`;
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return `unexpected ${describeToken(firstRedundant)}`;
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
    const what = ruleWhat[ruleName] ?? firstTokens(expectedPathsPerAlt.flat());
    return `expected ${what} but found ${describeToken(actual[0]!)}`;
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, ruleName }) {
    const what = ruleWhat[ruleName] ?? firstTokens(expectedIterationPaths);
    return `expected ${what} but found ${describeToken(actual[0]!)}`;
  },
};
