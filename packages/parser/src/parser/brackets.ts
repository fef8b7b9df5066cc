/** Where an unclosed bracket was opened, for the message of the error that finds it missing. */
import type { IToken } from "../chevrotain.js";
import * as T from "../lexer/tokens.js";
import type { SourceFile } from "../source.js";

/**
 * "expected ')' but found …" at token `at` also says where the bracket it would close was
 * opened ("expected ')' to close the '(' at 3:8 but found '}'"): the line that lacks it.
 */
export function withOpener(message: string, tokens: readonly IToken[], at: IToken, src: SourceFile): string {
  const m = /^expected '([)\]}])' but found /.exec(message);
  if (!m) return message;
  // A `{` is any token that ends with one (`{`, `think {`, `do {`, `${`…); the `}` of each closes it.
  const [isOpener, isCloser] =
    m[1] === ")"
      ? [(t: IToken) => t.tokenType === T.LParen, (t: IToken) => t.tokenType === T.RParen]
      : m[1] === "]"
        ? [(t: IToken) => t.tokenType === T.LBracket, (t: IToken) => t.tokenType === T.RBracket]
        : [(t: IToken) => t.image.endsWith("{"), (t: IToken) => t.image === "}"];
  let i = tokens.indexOf(at);
  if (i < 0) i = tokens.length;
  for (let depth = 0; --i >= 0; ) {
    const t = tokens[i]!;
    if (isCloser(t)) depth++;
    else if (isOpener(t) && depth-- === 0) {
      const p = src.positionAt(t.startOffset + t.image.length - 1);
      const opened = m[1] === ")" ? "(" : m[1] === "]" ? "[" : "{";
      return message.replace(/ but found /, ` to close the '${opened}' at ${p.line}:${p.column} but found `);
    }
  }
  return message;
}
