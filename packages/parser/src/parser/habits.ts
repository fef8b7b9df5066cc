/**
 * JavaScript (and Python) habits: syntax a JavaScript, TypeScript or Python programmer writes
 * that Patchwork spells another way. When a syntax error lands on one, the error says what Patchwork has instead
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
export function javascriptHabit(tokens: readonly IToken[], i: number, text = ""): string | undefined {
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
  const loop = loopHabit(tokens, i, text);
  if (loop !== undefined) return loop;
  if (t.image === "," && arrowAfter(tokens, i)) {
    return "Patchwork has no arrow functions ('=>'): declare `fun name(a, b) { … }` at the top level and use its name";
  }
  if (t.image === "=" && before?.image === "=") return undefined;
  if (t.image === ">" && before?.image === "=") {
    return "Patchwork has no arrow functions ('=>'): declare `fun name(…) { … }` at the top level and use its name";
  }
  return undefined;
}

/** The token index of the `for` that starts the line of token `i` (only blanks before it), or -1. */
function forOfLine(tokens: readonly IToken[], i: number, text: string): number {
  // (A loop's header is short: looking back a few tokens keeps an error's cost bounded.)
  for (let j = i - 1; j >= 0 && j >= i - 24; j--) {
    const image = tokens[j]!.image;
    if (/\n/.test(image)) return -1;
    if (image === "for") {
      const lineStart = text.lastIndexOf("\n", tokens[j]!.startOffset - 1) + 1;
      return text === "" || text.slice(lineStart, tokens[j]!.startOffset).trim() === "" ? j : -1;
    }
  }
  return -1;
}

/**
 * A loop written as Python (`for k, v in o`) or C (`for (var i = 0; i < n; i++)`) does: the
 * Patchwork loop, from the line's own names where they can be read.
 */
function loopHabit(tokens: readonly IToken[], i: number, text: string): string | undefined {
  const f = forOfLine(tokens, i, text);
  if (f < 0) return undefined;
  const line = text.slice(tokens[f]!.startOffset, (text.indexOf("\n", tokens[f]!.startOffset) + 1 || text.length + 1) - 1);
  const pair = /^for\s+(?:var\s+)?([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)\s+in\s+([^{]+?)\s*\{?\s*$/.exec(line);
  if (tokens[i]!.image === "," && pair) {
    const [, k, v, o] = pair;
    return `a loop takes one variable: for the keys and values of an object write \`for ${k} in keys(${o}) { var ${v} = ${o}[${k}] … }\``;
  }
  if (tokens[f + 1]?.image !== "(") return undefined;
  const c = /^for\s*\(\s*(?:var|let|const)?\s*([A-Za-z_]\w*)\s*=\s*([^;]+?)\s*;\s*\1\s*(<=?)\s*([^;]+?)\s*;/.exec(line);
  const range = c ? `${c[2]}...${c[3] === "<=" ? c[4] : /^\d+$/.test(c[4]!) ? String(Number(c[4]) - 1) : `${c[4]} - 1`}` : "a...b";
  return `Patchwork has no C-style 'for (…; …; …)': loop over a range (both ends included): \`for ${c?.[1] ?? "i"} in ${range} { … }\``;
}

/** Whether the `(` … `)` around token `i` (a `,` of a parameter list) is followed by `=>`. */
function arrowAfter(tokens: readonly IToken[], i: number): boolean {
  let depth = 0;
  for (let j = i + 1; j < tokens.length && j < i + 64; j++) {
    const image = tokens[j]!.image;
    if (image === "(" || image === "[" || image === "{") depth++;
    else if (image === ")" && depth === 0) return tokens[j + 1]?.image === "=" && tokens[j + 2]?.image === ">";
    else if (image === ")" || image === "]" || image === "}") depth--;
    if (/\n/.test(image) || depth < 0) return false;
  }
  return false;
}

/** Statement-leading words of JavaScript that are not Patchwork: the word to write instead, and what it does. */
export const JAVASCRIPT_WORDS: Readonly<Record<string, { instead: string; what: string }>> = {
  let: { instead: "var", what: "declare variables with 'var'" },
  const: { instead: "var", what: "declare variables with 'var' (there is no 'const')" },
  function: { instead: "fun", what: "declare functions with 'fun', at the top level of the file" },
};

/**
 * Statement-leading words of Python and JavaScript that Patchwork spells another way, with the
 * Patchwork form of the line (`line`: the statement's line, from the word on).
 */
const FOREIGN_STATEMENTS: Readonly<Record<string, (line: string) => string>> = {
  def: (line) => {
    const m = /^def\s+([A-Za-z_]\w*\s*\([^)]*\))/.exec(line);
    return `'def' is not Patchwork: declare functions with 'fun' and a block in braces: \`fun ${m ? m[1] : "name(…)"} { … }\``;
  },
  elif: (line) => `'elif' is not Patchwork: write \`else if${clip(line.slice(4))}\``,
  switch: (line) => {
    const m = /^switch\s*\(?\s*([^){]+?)\s*\)?\s*\{?\s*$/.exec(line);
    const x = m ? m[1] : "x";
    return `Patchwork has no 'switch': write \`if ${x} == 1 { … } else if ${x} == 2 { … } else { … }\``;
  },
  finally: () =>
    "Patchwork has no 'finally': write the clean-up after the `try { … } catch e { … }`, and in the `catch` too if it throws again",
  elsif: (line) => `'elsif' is not Patchwork: write \`else if${clip(line.slice(5))}\``,
};

function clip(text: string): string {
  return text.length > 50 ? text.slice(0, 50) + "…" : text;
}

/** Whether `word` starts a statement of Python or JavaScript that Patchwork spells another way. */
export function isForeignStatement(word: string): boolean {
  return Object.prototype.hasOwnProperty.call(FOREIGN_STATEMENTS, word);
}

/** The message for a failed statement `line` that starts with a Python or JavaScript word (FOREIGN_STATEMENTS), if it does. */
export function foreignStatement(word: string, line: string): string | undefined {
  const f = Object.prototype.hasOwnProperty.call(FOREIGN_STATEMENTS, word) ? FOREIGN_STATEMENTS[word] : undefined;
  return f?.(line);
}

/** `throw new Error("…")`: the message for the `new` (Patchwork throws any value). */
export function throwNew(line: string): string {
  const m = /^throw\s+new\s+\w*\s*\(\s*(.*?)\s*\)\s*$/.exec(line);
  const value = m && m[1] !== "" ? m[1] : '"what went wrong"';
  return `Patchwork has no 'new' (no classes): throw the value itself: \`throw ${clip(value!)}\` (a string, or an object such as {message: …})`;
}

/** The message for a statement `line` that starts with one of JAVASCRIPT_WORDS. */
export function javascriptWord(word: string, line: string): string | undefined {
  const w = Object.prototype.hasOwnProperty.call(JAVASCRIPT_WORDS, word) ? JAVASCRIPT_WORDS[word] : undefined;
  if (w === undefined) return undefined;
  const fixed = w.instead + line.slice(word.length);
  const shown = fixed.length > 60 ? fixed.slice(0, 60) + "…" : fixed;
  return `'${word}' is not Patchwork: ${w.what}: \`${shown}\``;
}

/**
 * A JavaScript template literal (`` `x is ${x}` ``) in code: the span from its opening to its
 * closing backtick on the same line, from the offset of an unexpected "`" (a lexing error);
 * undefined when that backtick does not open one.
 */
export function backtickTemplate(text: string, offset: number): { start: number; end: number; message: string } | undefined {
  if (text.charAt(offset) !== "`") return undefined;
  const close = text.indexOf("`", offset + 1);
  if (close < 0 || text.slice(offset, close).includes("\n")) return undefined;
  const body = text.slice(offset + 1, close).replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  return {
    start: offset,
    end: close + 1,
    message: `Patchwork has no backtick strings: every "…" string interpolates: write \`"${clip(body)}"\``,
  };
}
