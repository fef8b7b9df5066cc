// Fuzzing: random and mutated inputs never make parse() throw, and every diagnostic and
// node span lies inside the source. Seeded, so failures reproduce; bounded in time.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";
import { checkSpans } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const corpus: string[] = [];
for (const sub of ["golden", "seeds"]) {
  const dir = join(here, "fixtures", sub);
  for (const f of readdirSync(dir)) if (f.endsWith(".pw")) corpus.push(readFileSync(join(dir, f), "utf8"));
}

/** mulberry32: a small seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pieces = [
  "{", "}", "(", ")", "[", "]", "<", ">", "$", "${", "$@{", "$<", "$(", "($ ", "$ ", "$?", "$'x'", "\"", "'", "\\", "#",
  "\n", "\r\n", " ", "\t", "think {", "ask <", "do {", "do <", "if ", "else ", "while ", "for ", "var ", "fun ", "trait ",
  "type ", "import ", "export ", "@", "return", "=", "==", "...", "++", "--", "&&", "||", "|", ";", ",", ".", ":", "x",
  "1", "2.5", "1e3", "\"s $x ${y}\"", "`", "~", "é", "😀", "\u0000", "2>&1", ">>", "&>", "'q'",
];

function mutate(text: string, r: () => number): string {
  let s = text;
  const n = 1 + Math.floor(r() * 4);
  for (let k = 0; k < n; k++) {
    const at = Math.floor(r() * (s.length + 1));
    const op = r();
    if (op < 0.35) s = s.slice(0, at) + pieces[Math.floor(r() * pieces.length)] + s.slice(at);
    else if (op < 0.65) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(r() * 12));
    else if (op < 0.85) {
      const len = Math.floor(r() * 30);
      s = s.slice(0, at) + s.slice(at, at + len) + s.slice(at);
    } else s = s.slice(0, at);
  }
  return s;
}

function randomText(r: () => number): string {
  let s = "";
  const n = Math.floor(r() * 40);
  for (let i = 0; i < n; i++) s += pieces[Math.floor(r() * pieces.length)];
  return s;
}

function check(source: string): void {
  let result;
  try {
    result = parse(source);
  } catch (e) {
    throw new Error(`parse threw on ${JSON.stringify(source)}: ${String(e)}`);
  }
  for (const d of result.diagnostics) {
    const { start, end } = d.span;
    if (!(start.offset >= 0 && start.offset <= end.offset && end.offset <= source.length)) {
      throw new Error(`diagnostic span outside the source for ${JSON.stringify(source)}: ${JSON.stringify(d)}`);
    }
    if (d.message.startsWith("internal parser error")) throw new Error(`${d.message} on ${JSON.stringify(source)}`);
    expect(d.code).toMatch(/^PW[12]\d{3}$/);
  }
  try {
    checkSpans(result.program, source);
  } catch (e) {
    throw new Error(`${String(e)} on ${JSON.stringify(source)}`);
  }
}

describe("fuzz", () => {
  it("random token soup", () => {
    const r = rng(1);
    for (let i = 0; i < 3000; i++) check(randomText(r));
  });

  it("mutated real programs", () => {
    const r = rng(2);
    for (let i = 0; i < 2000; i++) check(mutate(corpus[i % corpus.length]!, r));
  });

  it("every prefix of a real program", () => {
    const source = corpus[0]!;
    for (let i = 0; i <= source.length; i += 3) check(source.slice(0, i));
  });
});
