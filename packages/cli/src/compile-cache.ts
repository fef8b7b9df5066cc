// Node ≥ 22.1 can keep the compiled code of the modules a process loads, between processes
// (`module.enableCompileCache`). The launcher turns it on before it imports main.ts's ES modules
// (bundle/index.js and its chunks, which Node 20 compiles afresh in every process), in the cache
// directory's `node-compile-cache/` (decision 0030). Node 20 has no such cache: nothing happens
// there, and the fast commands keep their own scripts' code cache on every Node (decisions 17–20).
import { lstatSync, mkdirSync } from "node:fs";
import * as nodeModule from "node:module";
import { join } from "node:path";

type EnableCompileCache = (directory: string) => { status: number; message?: string; directory?: string };

/**
 * Turns Node's compile cache on for this process (its main thread) when Node has one and the
 * cache is on (not `--no-cache`, `PATCHWORK_NO_CACHE`, or the sources); returns its directory,
 * or undefined when it stays off. `PATCHWORK_DEBUG=compile-cache` says which.
 */
export async function enableCompileCache(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== "function") return off(env, `not in Node ${process.version}`);
  // (Imported here: on Node 20 the launcher's copy of the cache module is not even loaded.)
  const { ParseCache } = await import("./cache.js");
  const cache = ParseCache.open({ noCache: argv.includes("--no-cache"), env });
  if (!cache) return off(env, "off");
  const dir = join(cache.dir, "node-compile-cache");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Ours alone, or another user could plant compiled code that V8 would run (the directory
    // is not checked by Node, nor its entries' owner).
    const s = lstatSync(dir);
    const uid = process.getuid?.();
    if (!s.isDirectory() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o077) !== 0) return off(env, `${dir} is not this user's alone`);
  } catch (error) {
    return off(env, `${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const result = enable(dir);
  // Statuses (module.constants.compileCacheStatus): 0 failed, 1 enabled, 2 already enabled, 3 disabled (NODE_DISABLE_COMPILE_CACHE).
  if (result.status !== 1 && result.status !== 2) return off(env, `not enabled (${result.message ?? `status ${result.status}`})`);
  debug(env, `node compile cache: ${result.directory ?? dir}`);
  return result.directory ?? dir;
}

function off(env: NodeJS.ProcessEnv, why: string): undefined {
  debug(env, `node compile cache: ${why}`);
  return undefined;
}

function debug(env: NodeJS.ProcessEnv, line: string): void {
  if ((env.PATCHWORK_DEBUG ?? "").split(",").includes("compile-cache")) process.stderr.write(`patchwork: ${line}\n`);
}
