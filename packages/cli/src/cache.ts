// The CLI's cache of parse results (docs/cli.md, "The cache"; why: decision 0010).
//
// A warm `patchwork run FILE` (or `check FILE`) of a file seen before loads its AST (or its
// diagnostics) from here and never loads the parser: building Chevrotain's lexer and parser is
// most of a cold start. An entry is one file, `<dir>/<kind>-<key>.json`:
//
//     {"format":1,"key":"<key>","sha256":"<sha-256 of the payload>","bytes":N}\n<payload>
//
// The key is a SHA-256 of the cache format, the build (a hash of the bundled code, so a
// rebuilt parser never reads an old AST), the kind and the caller's parts (file name and
// bytes). An entry is used only when its header names the same key and the payload has the
// recorded length and hash and parses as JSON; anything else (truncated, corrupt, foreign,
// unreadable, or owned by another user) counts as a miss, and the miss's result is written
// over it. The directory is made private (0700) and entries are 0600. Writes go to a
// temporary file renamed into place, so a reader never sees half an entry. A directory that
// cannot be created or written turns caching off for the rest of the process (one line with
// --verbose). Nothing here throws.
//
// It also keeps V8's compiled code of the parser (`code-<key>.bin`; `loadScript` below).
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Script } from "node:vm";

/** Set by scripts/bundle-cli.mjs (esbuild `define`): a hash of the code bundled. */
declare const __PATCHWORK_BUILD_ID__: string | undefined;

export const CACHE_FORMAT = 1;
/** Payloads larger than this are not cached (a generated 1 MB program's AST is ≈ 30 MB of JSON). */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/** Entries not rewritten for this long are removed by the occasional prune (see `put`). */
export const MAX_ENTRY_AGE_MS = 30 * 24 * 3600 * 1000;
/** One write in this many prunes the directory (a cold path's cost; warm runs never prune). */
const PRUNE_EVERY = 64;

/** Parse results (JSON, `<kind>-<key>.json`), and V8's compiled code of the bundle's scripts (`code-<key>.bin`, `loadScript`). */
export type CacheKind = "ast" | "check" | "code";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The cache directory: `$PATCHWORK_CACHE_DIR`, else `$XDG_CACHE_HOME/patchwork`, else
 * `~/.cache/patchwork`.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PATCHWORK_CACHE_DIR) return env.PATCHWORK_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "patchwork");
  return join(homedir(), ".cache", "patchwork");
}

/** The build's identity, or undefined when not running from the bundle (no caching then). */
export function buildId(): string | undefined {
  return typeof __PATCHWORK_BUILD_ID__ === "string" ? __PATCHWORK_BUILD_ID__ : undefined;
}

export interface CacheOptions {
  /** `--no-cache`. */
  noCache?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Where a --verbose line goes (the one line that says caching is off because of the directory). */
  verbose?: (line: string) => void;
  /** The build identity (default: the bundle's; tests give one to use the cache from the sources). */
  build?: string;
}

export class ParseCache {
  private writable = true;

  private constructor(
    readonly dir: string,
    private readonly build: string,
    private readonly verbose: ((line: string) => void) | undefined,
  ) {}

  /** The cache, or null when it is turned off (`--no-cache`, `PATCHWORK_NO_CACHE=1`, or not the bundle). */
  static open(options: CacheOptions = {}): ParseCache | null {
    const env = options.env ?? process.env;
    if (options.noCache) return null;
    const off = env.PATCHWORK_NO_CACHE;
    if (off !== undefined && off !== "" && off !== "0") return null;
    const build = options.build ?? buildId();
    if (build === undefined) return null;
    return new ParseCache(cacheDir(env), build, options.verbose);
  }

  /** The key of an entry: format, build, kind and the caller's parts. */
  key(kind: CacheKind, parts: readonly string[]): string {
    const h = createHash("sha256");
    for (const part of [String(CACHE_FORMAT), this.build, kind, ...parts]) h.update(`${part.length}:`).update(part);
    return h.digest("hex");
  }

  private file(kind: CacheKind, key: string): string {
    return join(this.dir, `${kind}-${key}.${kind === "code" ? "bin" : "json"}`);
  }

  /** The payload stored under the key, or undefined (missing, or not a sound entry for this key). */
  get(kind: CacheKind, key: string): unknown {
    let text: string;
    try {
      const path = this.file(kind, key);
      // Only our own entries: in a shared directory another user could plant a crafted AST.
      if (!ownedByUs(path)) return undefined;
      text = readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
    const nl = text.indexOf("\n");
    if (nl < 0) return undefined;
    try {
      const header = JSON.parse(text.slice(0, nl)) as { format?: unknown; key?: unknown; sha256?: unknown; bytes?: unknown };
      const payload = text.slice(nl + 1);
      if (header.format !== CACHE_FORMAT || header.key !== key || header.bytes !== payload.length) return undefined;
      if (header.sha256 !== sha256(payload)) return undefined;
      return JSON.parse(payload);
    } catch {
      return undefined;
    }
  }

  /**
   * The bytes stored under the key by `putBytes`, or undefined (missing, or not a sound entry
   * for this key: the same checks as `get`, the length counted in bytes).
   */
  getBytes(kind: CacheKind, key: string): Buffer | undefined {
    try {
      const path = this.file(kind, key);
      if (!ownedByUs(path)) return undefined;
      const data = readFileSync(path);
      const nl = data.indexOf(10);
      if (nl < 0 || nl > 1024) return undefined;
      const header = JSON.parse(data.subarray(0, nl).toString("utf8")) as { format?: unknown; key?: unknown; sha256?: unknown; bytes?: unknown };
      const payload = data.subarray(nl + 1);
      if (header.format !== CACHE_FORMAT || header.key !== key || header.bytes !== payload.length) return undefined;
      if (header.sha256 !== sha256(payload)) return undefined;
      return payload;
    } catch {
      return undefined;
    }
  }

  /** Stores bytes under the key (read back by `getBytes`), as `put` does; false if not stored. */
  putBytes(kind: CacheKind, key: string, payload: Uint8Array): boolean {
    if (!this.writable || payload.length > MAX_ENTRY_BYTES) return false;
    const header = JSON.stringify({ format: CACHE_FORMAT, key, sha256: sha256(payload), bytes: payload.length });
    return this.write(kind, key, [Buffer.from(`${header}\n`), payload]);
  }

  /**
   * Stores a payload (a JSON value) under the key. Values JSON cannot carry exactly
   * (non-finite numbers, -0) are not stored, nor payloads over MAX_ENTRY_BYTES.
   */
  put(kind: CacheKind, key: string, value: unknown): void {
    if (!this.writable) return;
    let payload: string;
    try {
      payload = JSON.stringify(value, exactJson);
    } catch {
      return; // not exactly representable: not cached
    }
    if (payload === undefined || payload.length > MAX_ENTRY_BYTES) return;
    const header = JSON.stringify({ format: CACHE_FORMAT, key, sha256: sha256(payload), bytes: payload.length });
    this.write(kind, key, [`${header}\n${payload}`]);
  }

  /** Writes an entry atomically (a temporary file renamed into place); on failure, stops caching. */
  private write(kind: CacheKind, key: string, parts: (string | Uint8Array)[]): boolean {
    const target = this.file(kind, key);
    const temp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileSync(temp, parts.length === 1 ? parts[0]! : Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p))), { mode: 0o600 });
      renameSync(temp, target);
      if (Math.random() * PRUNE_EVERY < 1) this.prune();
      return true;
    } catch (error) {
      this.writable = false;
      try {
        rmSync(temp, { force: true });
      } catch {
        /* the directory itself is not there */
      }
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      this.verbose?.(`patchwork: cache directory ${this.dir} is not writable (${code}); not caching\n`);
      return false;
    }
  }

  /**
   * Removes the entries (and temporary files left by killed writers) not written for `maxAgeMs`:
   * the directory does not grow without bound as files are edited. Never throws.
   */
  prune(maxAgeMs: number = MAX_ENTRY_AGE_MS, now: number = Date.now()): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!/^((ast|check)-[0-9a-f]{64}\.json|code-[0-9a-f]{64}\.bin)(\..*\.tmp)?$/.test(name)) continue; // only our own files
      const path = join(this.dir, name);
      try {
        if (now - statSync(path).mtimeMs > maxAgeMs) rmSync(path, { force: true });
      } catch {
        /* gone meanwhile, or not ours to remove */
      }
    }
  }
}

/** Whether the file belongs to the user running patchwork (always true where there are no uids). */
function ownedByUs(path: string): boolean {
  const uid = process.getuid?.();
  return uid === undefined || statSync(path).uid === uid;
}

/** JSON.stringify replacer that refuses what JSON would change (NaN, ±Infinity → null; -0 → 0). */
function exactJson(_key: string, value: unknown): unknown {
  if (typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0))) throw new Error("not exact in JSON");
  return value;
}

// ── The parser's compiled code ──
//
// A run whose file is not in the parse cache (a file's first run, the first after each edit)
// loads the parser: ≈ 470 KB of code, most of it Chevrotain, which V8 parses and compiles
// again in every process; Node 20 keeps no compiled code of ES modules. So the bundle also
// holds the parser's modules as classic scripts (`<name>.script.js`, scripts/bundle-cli.mjs),
// compiled here with `vm.Script`; after the first use, the compiled code (`createCachedData`,
// which then includes the functions the parse ran) goes into the parse cache's directory as a
// `code-<key>.bin` entry (`putBytes`: atomic, private, checked by length and SHA-256 before V8
// sees it). The key covers the script's bytes, the Node and V8 versions and the architecture;
// data V8 rejects anyway (other flags) is compiled without and replaced. No cache (`--no-cache`,
// `PATCHWORK_NO_CACHE=1`, an unwritable directory): the script is compiled without one. Run
// from the sources (no bundle) or without the script file: the ES module, as before.
//
// `PATCHWORK_DEBUG=code-cache` prints one line per script to stderr: how it was compiled.

/**
 * Set by scripts/bundle-cli.mjs (esbuild `define`): the bundle has the `*.script.js` files, and
 * this is the JSON of the SHA-256 of each as built, by name (so that a cold start does not hash
 * ≈ 470 KB again; a string, which esbuild inlines, where an object would be a chunk of its
 * own). The build also makes them ASCII, so that they are read as latin1: V8 gets a one-byte string.
 */
declare const __PATCHWORK_SCRIPTS__: string | undefined;

/** A module of the cold path, and what to do once it has done its work. */
export interface Loaded<T> {
  exports: T;
  /** Stores the compiled code when this process compiled the script without a cache (once). */
  done(): void;
}

const nothing = (): void => {};

/**
 * The module `./<name>.js` of this package: in the bundle, its script `<name>.script.js`
 * compiled with the code cache; else (the sources, or no script file) `fallback()`, its import.
 */
export async function loadScript<T>(name: "parsing" | "check-analysis" | "fast-commands", cache: ParseCache | null, fallback: () => Promise<T>): Promise<Loaded<T>> {
  return fromScript<T>(name, cache) ?? { exports: await fallback(), done: nothing };
}

function debug(line: string): void {
  if ((process.env.PATCHWORK_DEBUG ?? "").split(",").includes("code-cache")) process.stderr.write(`patchwork: code cache: ${line}\n`);
}

/**
 * The script `<name>.script.js` next to this module, run; undefined when there is none. (Also
 * vendor.ts's, for the agent runtime's npm packages: decision 0019.)
 */
export function fromScript<T>(name: string, cache: ParseCache | null): Loaded<T> | undefined {
  if (typeof __PATCHWORK_SCRIPTS__ !== "string") return undefined; // the sources: no scripts
  const built = (JSON.parse(__PATCHWORK_SCRIPTS__) as Record<string, string>)[name];
  if (built === undefined) return undefined;
  const url = new URL(`./${name}.script.js`, import.meta.url);
  let source: string;
  let stamp: string;
  try {
    const path = fileURLToPath(url);
    // The script as built, unless it was replaced since (its size and time are in the key).
    const s = statSync(path);
    stamp = `${s.size}:${s.mtimeMs}`;
    source = readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
  const nodeRequire = createRequire(url);
  const vm = nodeRequire("node:vm") as typeof import("node:vm");
  const key = cache?.key("code", [name, process.version, process.arch, process.versions.v8, built, stamp]);
  if (key) debug(`${name}: entry code-${key}.bin`);
  const cachedData = cache && key ? cache.getBytes("code", key) : undefined;
  const script: Script = new vm.Script(source, { filename: fileURLToPath(url), cachedData });
  const hit = cachedData !== undefined && !script.cachedDataRejected;
  debug(`${name}: ${!cache ? "off" : hit ? "used" : cachedData ? "rejected" : "missing"}`);
  const module = { exports: {} as T };
  (script.runInThisContext() as (e: T, r: NodeJS.Require, m: typeof module, u: string) => void)(module.exports, nodeRequire, module, url.href);
  let pending = !hit && cache !== null && key !== undefined;
  return {
    exports: module.exports,
    done() {
      if (!pending) return;
      pending = false;
      let data: Buffer;
      try {
        data = script.createCachedData();
      } catch {
        return; // nothing to keep: the next run compiles the script again
      }
      const written = cache!.putBytes("code", key!, data);
      debug(`${name}: ${written ? "written" : "not written"}`);
    },
  };
}
