/**
 * JavaScript habits: syntax a JavaScript (or TypeScript) programmer writes that Patchwork spells
 * another way. When a syntax error lands on one, the error says what Patchwork has instead
 * (PW2010) rather than what the grammar expected. Only consulted once an error was found, so
 * it never changes what parses.
 */
import type { IToken } from "../chevrotain.js";

/** The adjacent token before `i` (no blank between them), if any. */
function glued(tokens: readonly IToken[], i: number): IToken | undefined {
  const prev = tokens[i - 1];
  const t = tokens[i];
  if (!prev || !t || Number.isNaN(t.startOffset)) return undefined;
  return prev.startOffset + prev.image.length === t.startOffset ? prev : undefined;
}

/** Whether the statement containing token `i` is inside a function body (a `{` of a fun/worker/skill before it, still open). */
function insideFunction(tokens: readonly IToken[], i: number): boolean {
  let depth = 0;
  for (let j = i - 1; j >= 0; j--) {
    const image = tokens[j]!.image;
    if (image === "}") depth++;
    else if (image === "{" || image.endsWith("{")) {
      if (depth > 0) depth--;
      else {
        // The block's header: `fun name(…) {` (possibly with a return type) at the start of its line.
        for (let k = j - 1; k >= 0 && !/\n/.test(tokens[k]!.image); k--) {
          if (/^(fun|worker|skill|task)$/.test(tokens[k]!.image)) return true;
        }
      }
    }
  }
  return false;
}

/**
 * The JavaScript habit at token `i` (where a syntax error was found), as a message saying what
 * Patchwork has instead; undefined when the error is not one.
 */
export function javascriptHabit(tokens: readonly IToken[], i: number): string | undefined {
  const t = tokens[i];
  if (!t) return undefined;
  const before = glued(tokens, i);
  if (t.image === "=" && before && /^[-+*/%]$/.test(before.image)) {
    const op = before.image;
    const target = tokens[i - 2] && /^[A-Za-z_]\w*$/.test(tokens[i - 2]!.image) ? tokens[i - 2]!.image : "x";
    const value = tokens[i + 1] && /^[\w.]+$/.test(tokens[i + 1]!.image) ? tokens[i + 1]!.image : "y";
    const step = (op === "+" || op === "-") && value === "1" ? ` (or \`${target}${op}${op}\`)` : "";
    return `Patchwork has no '${op}=': write \`${target} = ${target} ${op} ${value}\`${step}`;
  }
  if (t.image === "*" && before?.image === "*") {
    return "Patchwork has no '**' (power) operator: multiply (`x * x`), or loop for larger powers";
  }
  if (t.image === "=" && (before?.image === "==" || before?.image === "!=")) {
    return `Patchwork has no '${before.image}=': '${before.image}' already compares without converting types`;
  }
  if (t.image === "fun" || t.image === "function") {
    const previous = tokens[i - 1]?.image;
    const asValue = previous !== undefined && /^(=|\(|,|\[|:|return)$/.test(previous);
    if (asValue) {
      return "a function is not written as a value: declare `fun name(…) { … }` at the top level of the file and use its name";
    }
    if (t.image === "fun" && insideFunction(tokens, i)) {
      return "functions are top-level items: declare this `fun` at the top level of the file, not inside another function";
    }
  }
  if (t.image === "=" && before?.image === "=") return undefined;
  if (t.image === ">" && before?.image === "=") {
    return "Patchwork has no arrow functions ('=>'): declare `fun name(…) { … }` at the top level and use its name";
  }
  return undefined;
}

/** Statement-leading words of JavaScript that are not Patchwork: the word to write instead, and what it does. */
export const JAVASCRIPT_WORDS: Readonly<Record<string, { instead: string; what: string }>> = {
  let: { instead: "var", what: "declare variables with 'var'" },
  const: { instead: "var", what: "declare variables with 'var' (there is no 'const')" },
  function: { instead: "fun", what: "declare functions with 'fun', at the top level of the file" },
};

/** The message for a statement `line` that starts with one of JAVASCRIPT_WORDS. */
export function javascriptWord(word: string, line: string): string | undefined {
  const w = Object.prototype.hasOwnProperty.call(JAVASCRIPT_WORDS, word) ? JAVASCRIPT_WORDS[word] : undefined;
  if (w === undefined) return undefined;
  const fixed = w.instead + line.slice(word.length);
  const shown = fixed.length > 60 ? fixed.slice(0, 60) + "…" : fixed;
  return `'${word}' is not Patchwork: ${w.what}: \`${shown}\``;
}
