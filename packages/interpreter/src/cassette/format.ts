/**
 * The cassette format (docs/replay.md): what crossed the agent boundary in one run, per think
 * in start order: the rendered prompt, the `do` calls the model made (block numbers, and the
 * text each gave back, for a reviewer) and the final answer; a repair turn of a typed think is
 * a second turn. Text with line breaks is stored as an array of lines, so a changed prompt
 * shows up in a diff as the lines that changed. Parsing checks the shape with zod (loaded on
 * first use) and names the line or the entry of anything wrong.
 */
import { createRequire } from "node:module";
import type * as Z from "zod";

export const CASSETTE_VERSION = 1;

/** One `do` call of a turn: the block number, and what it gave the model (not checked on replay). */
export interface CassetteDo {
  block: number;
  result?: string;
  error?: string;
}

export interface CassetteTurn {
  /** The repair message the interpreter sent (absent on the first turn). */
  repair?: string;
  do: CassetteDo[];
  /** The agent's reply text at the end of the turn. */
  answer: string;
}

export interface CassetteThink {
  /** Ordinal of the think in its worker (1, 2, … in start order). */
  think: number;
  /** The worker whose evaluator ran the think; absent for the main program. */
  worker?: string;
  /** Where the think is written, `FILE:LINE:COL` (informational). */
  at?: string;
  kind?: "think" | "ask";
  prompt: string;
  turns: CassetteTurn[];
}

export interface Cassette {
  version: number;
  program?: string;
  thinks: CassetteThink[];
}

/** A cassette that cannot be read: the message names the file and the line or entry. */
export class CassetteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CassetteError";
  }
}

type ZodMod = typeof Z;
let schemaCache: Z.ZodType | null = null;

function schema(): Z.ZodType {
  if (schemaCache) return schemaCache;
  const z = createRequire(import.meta.url)("zod") as ZodMod;
  const text = z.union([z.string(), z.array(z.string())]);
  const turn = z.strictObject({
    repair: text.optional(),
    do: z.array(z.strictObject({ block: z.number().int().min(0), result: text.optional(), error: text.optional() })),
    answer: text,
  });
  const think = z.strictObject({
    think: z.number().int().min(1),
    worker: z.string().optional(),
    at: z.string().optional(),
    kind: z.enum(["think", "ask"]).optional(),
    prompt: text,
    turns: z.array(turn).min(1),
  });
  schemaCache = z.strictObject({
    patchwork: z.literal("cassette"),
    version: z.literal(CASSETTE_VERSION),
    program: z.string().optional(),
    thinks: z.array(think),
  });
  return schemaCache;
}

/** Whether the zod schema accepts `raw` (for the test that `plainlyValid` never accepts more). */
export function schemaAccepts(raw: unknown): boolean {
  return schema().safeParse(raw).success;
}

type Plain = Record<string, unknown>;
const TOP_KEYS = new Set(["patchwork", "version", "program", "thinks"]);
const THINK_KEYS = new Set(["think", "worker", "at", "kind", "prompt", "turns"]);
const TURN_KEYS = new Set(["repair", "do", "answer"]);
const DO_KEYS = new Set(["block", "result", "error"]);

function isPlain(v: unknown, keys: Set<string>): v is Plain {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).every((k) => keys.has(k));
}
/** Every element, holes too (`Array.prototype.every` skips holes). */
function all(v: unknown, check: (x: unknown) => boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!check(v[i])) return false;
  return true;
}
const isText = (v: unknown) => typeof v === "string" || all(v, (s) => typeof s === "string");
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);
const isString = (v: unknown) => typeof v === "string";
const isInt = (v: unknown, min: number) => typeof v === "number" && Number.isInteger(v) && v >= min;

/**
 * True only when `raw` certainly matches the zod schema above (strict keys, types, bounds); a
 * false answer only means "let zod decide and explain".
 */
export function plainlyValid(raw: unknown): boolean {
  if (!isPlain(raw, TOP_KEYS) || raw.patchwork !== "cassette" || raw.version !== CASSETTE_VERSION) return false;
  if (!optional(raw.program, isString)) return false;
  return all(
    raw.thinks,
    (t: unknown) =>
      isPlain(t, THINK_KEYS) &&
      isInt(t.think, 1) &&
      optional(t.worker, isString) &&
      optional(t.at, isString) &&
      optional(t.kind, (k) => k === "think" || k === "ask") &&
      isText(t.prompt) &&
      Array.isArray(t.turns) &&
      t.turns.length >= 1 &&
      all(
        t.turns,
        (u: unknown) =>
          isPlain(u, TURN_KEYS) &&
          optional(u.repair, isText) &&
          isText(u.answer) &&
          all(u.do, (d: unknown) => isPlain(d, DO_KEYS) && isInt(d.block, 0) && optional(d.result, isText) && optional(d.error, isText)),
      ),
  );
}

/** Text as stored: one string without line breaks, else its lines. */
function store(text: string): string | string[] {
  return text.includes("\n") ? text.split("\n") : text;
}

function load(text: string | string[]): string {
  return typeof text === "string" ? text : text.join("\n");
}

/** Line and column (1-based) of a UTF-16 offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: Math.min(offset, text.length) - start + 1 };
}

/** JSON.parse with the error at a line and column. */
export function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const m = /at position (\d+)/.exec(message);
    const offset = m ? Number(m[1]) : text.length;
    const { line, column } = lineColumn(text, offset);
    const why = message.replace(/ in JSON at position \d+.*$/, "").replace(/^Unexpected end of JSON input$/, "the file ends too early");
    throw new CassetteError(`${what}:${line}:${column}: not valid JSON: ${why}`);
  }
}

/** Parses a cassette file; throws CassetteError naming the line or the entry at fault. */
export function parseCassette(text: string, fileName: string): Cassette {
  const raw = parseJsonText(text, fileName);
  // A well-formed cassette is checked by hand (loading zod took ≈ 0.3 s of a resume's start);
  // anything else goes to the zod schema, which says what is wrong.
  const result = plainlyValid(raw) ? { success: true as const, data: raw } : schema().safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = issue.path;
    let where = "";
    if (path[0] === "thinks" && typeof path[1] === "number") {
      where = `entry ${path[1] + 1} of "thinks"`;
      const rest = path.slice(2).map(String).join(".");
      if (rest) where += `, field ${rest}`;
    } else if (path.length > 0) where = `field ${path.map(String).join(".")}`;
    else where = "the top level";
    throw new CassetteError(`${fileName}: ${where}: ${issue.message} (not a Patchwork cassette, or edited by hand?)`);
  }
  const data = result.data as {
    program?: string;
    thinks: { think: number; worker?: string; at?: string; kind?: "think" | "ask"; prompt: string | string[]; turns: { repair?: string | string[]; do: { block: number; result?: string | string[]; error?: string | string[] }[]; answer: string | string[] }[] }[];
  };
  const seen = new Set<string>();
  const thinks = data.thinks.map((t, i): CassetteThink => {
    const key = `${t.worker ?? "main"}#${t.think}`;
    if (seen.has(key))
      throw new CassetteError(`${fileName}: entry ${i + 1} of "thinks": think ${t.think}${t.worker ? ` of worker ${t.worker}` : ""} is recorded twice`);
    seen.add(key);
    return {
      think: t.think,
      ...(t.worker !== undefined ? { worker: t.worker } : {}),
      ...(t.at !== undefined ? { at: t.at } : {}),
      ...(t.kind !== undefined ? { kind: t.kind } : {}),
      prompt: load(t.prompt),
      turns: t.turns.map((turn) => ({
        ...(turn.repair !== undefined ? { repair: load(turn.repair) } : {}),
        do: turn.do.map((d) => ({
          block: d.block,
          ...(d.result !== undefined ? { result: load(d.result) } : {}),
          ...(d.error !== undefined ? { error: load(d.error) } : {}),
        })),
        answer: load(turn.answer),
      })),
    };
  });
  return { version: CASSETTE_VERSION, ...(data.program !== undefined ? { program: data.program } : {}), thinks };
}

/** One think as stored: stable key order, multi-line text as lines. */
function storedThink(t: CassetteThink): unknown {
  return {
    think: t.think,
    ...(t.worker !== undefined ? { worker: t.worker } : {}),
    ...(t.at !== undefined ? { at: t.at } : {}),
    ...(t.kind !== undefined && t.kind !== "think" ? { kind: t.kind } : {}),
    prompt: store(t.prompt),
    turns: t.turns.map((turn) => ({
      ...(turn.repair !== undefined ? { repair: store(turn.repair) } : {}),
      do: turn.do.map((d) => ({
        block: d.block,
        ...(d.result !== undefined ? { result: store(d.result) } : {}),
        ...(d.error !== undefined ? { error: store(d.error) } : {}),
      })),
      answer: store(turn.answer),
    })),
  };
}

/**
 * The file text up to the `thinks` array's opening bracket (exclusive): what a journal writes
 * first. `formatCassette` is this, then the entries, then {@link CASSETTE_END}.
 */
export function cassetteHead(program: string | undefined): string {
  const head = JSON.stringify({ patchwork: "cassette", version: CASSETTE_VERSION, ...(program !== undefined ? { program } : {}) }, null, 2);
  return `${head.slice(0, -2)},\n  "thinks": `;
}

/** What closes the `thinks` array and the file after the last entry. */
export const CASSETTE_END = "\n  ]\n}\n";

/**
 * One entry of the `thinks` array as file text: each of its lines indented by four spaces, its
 * first line `    {` and its last `    }` (strings hold no line breaks, so no other line of the
 * file is either: a reader of a cut journal finds the last whole entry by them).
 */
export function formatCassetteEntry(t: CassetteThink): string {
  return JSON.stringify(storedThink(t), null, 2).replace(/^/gm, "    ");
}

/** The cassette as file text: stable key order, 2-space indent, multi-line text as lines. */
export function formatCassette(cassette: Cassette): string {
  const head = cassetteHead(cassette.program);
  if (cassette.thinks.length === 0) return `${head}[]\n}\n`;
  return `${head}[\n${cassette.thinks.map(formatCassetteEntry).join(",\n")}${CASSETTE_END}`;
}

/** A cassette read from a file a killed run may have cut: its whole entries, and how it ended. */
export interface ReadCassette {
  cassette: Cassette;
  /** The file ended inside an entry (a recording killed while writing it): that entry was left out. */
  cut: boolean;
}

/**
 * Reads a cassette as `parseCassette` does, but a file that ends early (a recording killed
 * mid-write, docs/replay.md "Resuming a run") is read up to its last whole entry.
 */
export function readCassetteText(text: string, fileName: string): ReadCassette {
  try {
    return { cassette: parseCassette(text, fileName), cut: false };
  } catch (error) {
    const whole = wholeEntries(text);
    if (whole === null) throw error;
    try {
      return { cassette: parseCassette(whole, fileName), cut: true };
    } catch {
      throw error;
    }
  }
}

/** The text up to the last whole entry, closed; null when it is not a cut cassette. */
function wholeEntries(cut: string): string | null {
  const text = `${cut}\n`;
  const open = text.indexOf('\n  "thinks": [');
  if (!text.startsWith("{\n") || open < 0) return null;
  const arrayStart = open + '\n  "thinks": ['.length;
  const lastEnd = Math.max(text.lastIndexOf("\n    }\n"), text.lastIndexOf("\n    },\n"));
  if (lastEnd < arrayStart) return `${text.slice(0, arrayStart)}]\n}\n`;
  return `${text.slice(0, lastEnd + "\n    }".length)}${CASSETTE_END}`;
}

export { lineDiff } from "./diff.js";
