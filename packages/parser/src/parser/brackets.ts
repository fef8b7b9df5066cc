/** Where an unclosed bracket was opened, for the message of the error that finds it missing. */
import type { IToken } from "../chevrotain.js";
import * as T from "../lexer/tokens.js";
import type { SourceFile } from "../source.js";

/**
 * "expected ')' but found …" at token `at` also says where the bracket it would close was
 * opened ("expected ')' to close the '(' at 3:8 but found '}'"): the line that lacks it.
 */
export function withOpener(message: string, tokens: readonly IToken[], at: IToken, src: SourceFile): string {
  const m = /^expected '([)\]])' but found /.exec(message);
  if (!m) return message;
  const [opener, closer] = m[1] === ")" ? [T.LParen, T.RParen] : [T.LBracket, T.RBracket];
  let i = tokens.indexOf(at);
  if (i < 0) i = tokens.length;
  for (let depth = 0; --i >= 0; ) {
    const t = tokens[i]!.tokenType;
    if (t === closer) depth++;
    else if (t === opener && depth-- === 0) {
      const p = src.positionAt(tokens[i]!.startOffset);
      return message.replace(/ but found /, ` to close the '${m[1] === ")" ? "(" : "["}' at ${p.line}:${p.column} but found `);
    }
  }
  return message;
}
