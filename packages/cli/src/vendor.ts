// The agent runtime's npm packages (the ACP SDK, the MCP server SDK, zod) from the bundle's
// classic script `vendor-agent.script.js`, compiled with a V8 code cache (cache.ts `fromScript`;
// why: decision 0019). In the bundle, every import of those packages is a generated shim module
// (scripts/bundle-vendor-agent.mjs) whose exports come from `vendorLibrary`: one copy of each
// package per thread, loaded when the first of them is imported (a run with an agent, `patchwork
// mcp`, `acp`, the test agent). From the sources (no bundle) no shim calls `vendorLibrary`: the
// packages are imported as they are.
import { fromScript, ParseCache, type CacheOptions, type Loaded } from "./cache.js";

interface VendorScript {
  load(specifier: string): unknown;
}

let options: CacheOptions = {};
let script: Loaded<VendorScript> | undefined | null = null;

/**
 * The cache switches of this command line (`--no-cache`, `--verbose`), for a load still to come;
 * by default the environment's (`PATCHWORK_NO_CACHE`, `PATCHWORK_CACHE_DIR`).
 */
export function configureVendorCache(commandLine: CacheOptions): void {
  options = commandLine;
}

/**
 * The namespace of `specifier` (one of scripts/bundle-vendor-agent.mjs's `vendorSpecifiers`) from
 * the script, or undefined without the script file (the shim then imports the package). The
 * first call compiles the script, with the cached code when there is some; without (or rejected),
 * its compiled code is written once the current turn of the event loop is over, which includes
 * every shim a module graph imports and the code their modules ran.
 */
export function vendorLibrary(specifier: string): unknown {
  if (script === null) {
    script = fromScript<VendorScript>("vendor-agent", ParseCache.open(options));
    if (script) setImmediate(() => script!.done()).unref();
  }
  return script?.exports.load(specifier);
}
