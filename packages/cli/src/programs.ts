// Programs for `patchwork run`, through the parse cache (cache.ts): the main file and every
// file its imports load (transitively) are looked up first; the parser (parsing.ts, with
// Chevrotain ≈ 400 KB) is imported only when one of them is not in the cache. The interpreter
// then gets a parse function for its imports that answers from what was looked up.
import { readFileSync } from "node:fs";
import type { Diagnostic, Program } from "@patchwork/parser/core";
import { importedFiles, importedModule, moduleDir, type ParseFn } from "@patchwork/interpreter/core";
import type { ParsedModules, ParsedProgram } from "@patchwork/agent";
import { loadScript, type Loaded, type ParseCache } from "./cache.js";

type Parsing = typeof import("./parsing.js");

/** The parser (parsing.ts), loaded on a miss: in the bundle, a script with a code cache (cache.ts `loadScript`). */
const loadParsing = (cache: ParseCache | null) => loadScript<Parsing>("parsing", cache, () => import("./parsing.js"));

/** The Threadbare loader: its own chunk, so that a run of a `.pw` file does not load it. */
const loadThreadbare = async () => (await import("@patchwork/parser/threadbare")).loadThreadbare;

export interface Parsed {
  program: Program;
  diagnostics: Diagnostic[];
}

export interface LoadedProgram {
  /** Null when a Threadbare file failed to load. */
  program: Program | null;
  diagnostics: Diagnostic[];
  /** Parses the modules the program imports (from the cache when it can). */
  parseModule: ParseFn;
}

/** How an AST is found in the cache: the file name as the parser is given it, and the text. */
const astKey = (cache: ParseCache, fileName: string, text: string) => cache.key("ast", [fileName, text]);

function cachedParse(cache: ParseCache, fileName: string, text: string): Parsed | undefined {
  const value = cache.get("ast", astKey(cache, fileName, text)) as Parsed | undefined;
  if (!value || typeof value !== "object" || !value.program || !Array.isArray(value.diagnostics)) return undefined;
  return value;
}

/**
 * Loads `file` (its `text` read already) for a run from `cwd`. With a cache, a warm run of
 * unchanged files never imports the parser.
 */
export async function loadProgram(file: string, text: string, cwd: string, cache: ParseCache | null): Promise<LoadedProgram> {
  // A Threadbare file needs no parser (parser/core) and imports nothing.
  if (file.toLowerCase().endsWith(".json")) return { ...(await loadThreadbare())(text, { fileName: file }), parseModule: fromKnown(new Map(), () => undefined) };
  // What the run will parse, by file name: its text and the cached result.
  const known = new Map<string, { text: string; parsed: Parsed }>();
  let main: Parsed | undefined;
  let complete = false;
  if (cache) {
    main = cachedParse(cache, file, text);
    complete = main !== undefined && lookUpImports(main.program, moduleDir(file, cwd), cache, known);
  }
  if (main && complete) {
    return { ...main, parseModule: fromKnown(known, () => undefined) };
  }
  const parsing = await loadParsing(cache);
  const parse = (fileName: string, source: string): Parsed => {
    const hit = known.get(fileName);
    if (hit && hit.text === source) return hit.parsed;
    return (cache ? cachedParse(cache, fileName, source) : undefined) ?? parseAndCache(parsing.exports, cache, fileName, source);
  };
  const loaded = { ...(main ?? parse(file, text)), parseModule: fromKnown(known, parse) };
  parsing.done();
  return loaded;
}

/**
 * The program and every file its imports load (transitively), parsed: from the cache where it
 * has them, else by the parser (imported only then), filling the cache. For a run on evaluator
 * threads (agent-run.ts), whose threads then load no parser.
 */
export async function parseAhead(file: string, text: string, cwd: string, cache: ParseCache | null): Promise<ParsedProgram> {
  // A Threadbare file is loaded here too (no parser needed: parser/core), and imports nothing.
  if (file.toLowerCase().endsWith(".json")) return { ...(await loadThreadbare())(text, { fileName: file }), modules: {} };
  let parsing: Loaded<Parsing> | undefined;
  const parse = async (fileName: string, source: string): Promise<Parsed> =>
    (cache ? cachedParse(cache, fileName, source) : undefined) ??
    parseAndCache((parsing ??= await loadParsing(cache)).exports, cache, fileName, source);
  const main = await parse(file, text);
  const modules: ParsedModules = {};
  const queue = importedFiles(main.program, moduleDir(file, cwd));
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (Object.hasOwn(modules, path)) continue;
    let source: string;
    try {
      source = readFileSync(path, "utf8");
    } catch {
      continue; // the interpreter reports it, positioned at the import
    }
    const parsed = await parse(path, source);
    modules[path] = { text: source, ...parsed };
    queue.push(...importedFiles(parsed.program, moduleDir(path, cwd)));
  }
  parsing?.done();
  return { ...main, modules };
}

/** Parses `source` as `fileName` and keeps the result in the cache (if any). */
function parseAndCache(parsing: Parsing, cache: ParseCache | null, fileName: string, source: string): Parsed {
  const { program, diagnostics } = parsing.parse(source, { fileName });
  cache?.put("ast", astKey(cache, fileName, source), { program, diagnostics });
  return { program, diagnostics };
}

/**
 * Looks up every file the program's imports load, recursively; true when all were in the
 * cache (a file that cannot be read is left to the interpreter, which reports it).
 */
function lookUpImports(program: Program, dir: string, cache: ParseCache, known: Map<string, { text: string; parsed: Parsed }>): boolean {
  const queue = importedFiles(program, dir);
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (known.has(path)) continue;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    const parsed = cachedParse(cache, path, text);
    if (!parsed) return false;
    known.set(path, { text, parsed });
    queue.push(...importedFiles(parsed.program, moduleDir(path, dir)));
  }
  return true;
}

function fromKnown(
  known: Map<string, { text: string; parsed: Parsed }>,
  parse: (fileName: string, text: string) => Parsed | undefined,
): ParseFn {
  return (text, fileName) => {
    const hit = known.get(fileName);
    const parsed = hit && hit.text === text ? hit.parsed : parse(fileName, text);
    // Only when the parser is not loaded: a file changed on disk while the program ran.
    if (!parsed) return { program: null, error: `${fileName} changed while the program ran; run it again` };
    return importedModule(parsed, fileName);
  };
}
