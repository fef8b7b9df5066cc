// The parser's code for the cold paths, compiled with a V8 code cache (why: decision 0016).
//
// A run whose file is not in the parse cache (a file's first run, the first after each edit)
// loads the parser: ≈ 470 KB of code, most of it Chevrotain, which V8 parses and compiles
// again in every process; Node 20 keeps no compiled code of ES modules. So the bundle also
// holds the parser's modules as classic scripts (`<name>.script.js`, scripts/bundle-cli.mjs),
// compiled here with `vm.Script`; after the first use, the compiled code (`createCachedData`,
// which then includes the functions the parse ran) goes into the parse cache's directory as a
// `code-<key>.bin` entry (cache.ts: atomic, private, checked by length and SHA-256 before V8
// sees it). The key covers the script's bytes, the Node and V8 versions and the architecture;
// data V8 rejects anyway (other flags) is compiled without and replaced. No cache (`--no-cache`,
// `PATCHWORK_NO_CACHE=1`, an unwritable directory): the script is compiled without one. Run
// from the sources (no bundle) or without the script file: the ES module, as before.
//
// `PATCHWORK_DEBUG=code-cache` prints one line per script to stderr: how it was compiled.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Script } from "node:vm";
import { sha256, type ParseCache } from "./cache.js";

/** Set by scripts/bundle-cli.mjs (esbuild `define`): the bundle has the `*.script.js` files. */
declare const __PATCHWORK_SCRIPTS__: boolean | undefined;

/** A module of the cold path, and what to do once it has done its work. */
export interface Loaded<T> {
  exports: T;
  /** Stores the compiled code when this process compiled the script without a cache (once). */
  done(): void;
}

const nothing = (): void => {};

/**
 * The modules a script takes from the caller's own code, by specifier: the namespaces of
 * `@patchwork/parser/core` and `@patchwork/interpreter/core` (scripts/bundle-cli.mjs), which
 * the caller has loaded already (this module imports neither: `check` must not load the
 * interpreter's core when its result is cached).
 */
export type Provided = Record<"@patchwork/parser/core" | "@patchwork/interpreter/core", object>;

/**
 * The module `./<name>.js` of this package: in the bundle, its script `<name>.script.js`
 * compiled with the code cache; else (the sources, or no script file) `fallback()`, its import.
 */
export async function loadScript<T>(name: "parsing" | "check-analysis", cache: ParseCache | null, provided: () => Promise<Provided>, fallback: () => Promise<T>): Promise<Loaded<T>> {
  return (await fromScript<T>(name, cache, provided)) ?? { exports: await fallback(), done: nothing };
}

function debug(line: string): void {
  if ((process.env.PATCHWORK_DEBUG ?? "").split(",").includes("code-cache")) process.stderr.write(`patchwork: code cache: ${line}\n`);
}

/** The script `<name>.script.js` next to this module, run; undefined when there is none. */
async function fromScript<T>(name: string, cache: ParseCache | null, provided: () => Promise<Provided>): Promise<Loaded<T> | undefined> {
  if (typeof __PATCHWORK_SCRIPTS__ !== "boolean") return undefined; // the sources: no scripts
  const url = new URL(`./${name}.script.js`, import.meta.url);
  let bytes: Buffer;
  try {
    bytes = readFileSync(url);
  } catch {
    return undefined;
  }
  const cores: Record<string, object> = await provided();
  const nodeRequire = createRequire(url);
  const vm = nodeRequire("node:vm") as typeof import("node:vm");
  const key = cache?.key("code", [name, process.version, process.arch, process.versions.v8, sha256(bytes)]);
  const cachedData = cache && key ? cache.getBytes("code", key) : undefined;
  const script: Script = new vm.Script(bytes.toString("utf8"), { filename: fileURLToPath(url), cachedData });
  const hit = cachedData !== undefined && !script.cachedDataRejected;
  debug(`${name}: ${!cache ? "off" : hit ? "used" : cachedData ? "rejected" : "missing"}`);
  const module = { exports: {} as T };
  const require = (id: string): unknown => (Object.hasOwn(cores, id) ? cores[id] : nodeRequire(id));
  (script.runInThisContext() as (e: T, r: typeof require, m: typeof module, u: string) => void)(module.exports, require, module, url.href);
  let pending = !hit && cache !== null && key !== undefined;
  return {
    exports: module.exports,
    done() {
      if (!pending) return;
      pending = false;
      const written = cache!.putBytes("code", key!, script.createCachedData());
      debug(`${name}: ${written ? "written" : "not written"}`);
    },
  };
}
