/**
 * A JSON parser that keeps object keys in document order (JSON.parse moves integer-like
 * keys first). Produces runtime values directly: objects become Maps.
 */
import { MAX_NESTING, type PwObject, type Value } from "./values.js";

export class JsonSyntaxError extends Error {}
/** The JSON text is valid so far but builds an array or object past the length limit. */
export class JsonTooLargeError extends Error {}

/** Arrays and objects nested deeper than values may be (MAX_NESTING) are a syntax error. */
const MAX_JSON_DEPTH = MAX_NESTING;

/**
 * Parses JSON text to a value. An array longer than `maxLength` elements is a syntax error
 * naming the limit (an engine array past its own maximum aborts the process).
 */
export function parseJson(text: string, maxLength = 2 ** 24): Value {
  const p = new JsonParser(text, maxLength);
  p.ws();
  const v = p.value();
  p.ws();
  if (p.i < text.length) p.fail("unexpected text after the JSON value");
  return v;
}

class JsonParser {
  i = 0;
  private depth = 0;
  constructor(
    readonly s: string,
    private readonly maxLength: number,
  ) {}

  private tooLarge(what: string): never {
    throw new JsonTooLargeError(`the JSON text holds ${what} (at position ${this.i})`);
  }

  private enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) this.fail(`arrays and objects nested more than ${MAX_JSON_DEPTH} levels`);
  }

  fail(msg: string): never {
    throw new JsonSyntaxError(`${msg} at position ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  value(): Value {
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "t") return this.word("true", true);
    if (c === "f") return this.word("false", false);
    if (c === "n") return this.word("null", null);
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    return this.fail(c === undefined ? "unexpected end of JSON" : `unexpected character '${c}'`);
  }

  word(w: string, v: Value): Value {
    if (this.s.startsWith(w, this.i)) {
      this.i += w.length;
      return v;
    }
    return this.fail("invalid literal");
  }

  number(): number {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) return this.fail("invalid number");
    this.i += m[0].length;
    return Number(m[0]);
  }

  string(): string {
    const s = this.s;
    let end = this.i + 1;
    let simple = true;
    while (end < s.length && s[end] !== '"') {
      if (s[end] === "\\") {
        simple = false;
        end += 2;
      } else end++;
    }
    if (end >= s.length) return this.fail("unterminated string");
    const raw = s.slice(this.i, end + 1);
    this.i = end + 1;
    if (simple) return raw.slice(1, -1);
    try {
      return JSON.parse(raw) as string;
    } catch {
      return this.fail("invalid string escape");
    }
  }

  array(): Value[] {
    this.enter();
    this.i++;
    const out: Value[] = [];
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.ws();
      if (out.length >= this.maxLength) this.tooLarge(`an array with more than ${this.maxLength} elements`);
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === "]") {
        this.depth--;
        return out;
      }
      if (c !== ",") {
        this.i--;
        return this.fail("expected ',' or ']'");
      }
    }
  }

  object(): PwObject {
    this.enter();
    this.i++;
    const out: PwObject = new Map();
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') return this.fail("expected a string key");
      const k = this.string();
      this.ws();
      if (this.s[this.i++] !== ":") {
        this.i--;
        return this.fail("expected ':'");
      }
      this.ws();
      const v = this.value();
      if (out.size >= this.maxLength && !out.has(k)) this.tooLarge(`an object with more than ${this.maxLength} entries`);
      out.set(k, v);
      this.ws();
      const c = this.s[this.i++];
      if (c === "}") {
        this.depth--;
        return out;
      }
      if (c !== ",") {
        this.i--;
        return this.fail("expected ',' or '}'");
      }
    }
  }
}
