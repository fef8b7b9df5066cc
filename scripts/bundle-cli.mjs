// Bundles the CLI and the library entry points into packages/cli/bundle/ (esbuild, ES modules
// with code splitting). Run by `npm run build` after `tsc -b` and bundle-vendor.mjs; its input is
// the compiled dist/ of the four packages. Why: docs/decisions/0009-bundled-cli.md.
//
//   bundle/index.js        `@patchwork/cli` (cli, main): what bin/patchwork.js runs
//   bundle/parser.js       `@patchwork/cli/parser`       = @patchwork/parser
//   bundle/interpreter.js  `@patchwork/cli/interpreter`  = @patchwork/interpreter
//   bundle/agent.js        `@patchwork/cli/agent`        = @patchwork/agent
//   bundle/test-agent.js   the scripted ACP test agent (`node …/test-agent.js SCRIPT.json`)
//   bundle/evaluator-worker.js, relay-main.js: started by path by the agent runtime
//   bundle/{cli,lib}-*.js  code shared between those, and each lazily imported module
//                          (`await import(…)` in the sources): loaded only when used.
//                          Two builds: the CLI's (index, test-agent, workers) and the
//                          library's (parser, interpreter, agent), so that what the library
//                          entry points export does not weigh on the CLI's start-up.
//
// Our four packages (and Chevrotain, pre-bundled into the parser) go in; npm packages stay
// external, installed as the CLI package's own dependencies: yargs (only loaded off the fast
// path), zod and the ACP/MCP SDKs (only loaded when a think or typed value needs them). The CLI
// build takes the last three from bundle/vendor-agent.script.js, which bundle-vendor-agent.mjs
// builds from them: compiled with a V8 code cache (decision 0019); the library build imports them.
// Skips the build when the bundle is newer than every input file.
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { build } from "esbuild";
import { generateParserTables } from "./generate-parser-tables.mjs";
import { buildVendorAgent } from "./bundle-vendor-agent.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));
const cli = join(repo, "packages", "cli");
const outdir = join(cli, "bundle");
const dist = (pkg, file) => join(repo, "packages", pkg, "dist", file);

export const entryPoints = {
  index: dist("cli", "index.js"),
  parser: dist("parser", "index.js"),
  interpreter: dist("interpreter", "index.js"),
  agent: dist("agent", "index.js"),
  "test-agent": dist("cli", "test-agent.js"),
  // Started by path, relative to the module that starts them (new URL("./x.js", import.meta.url)):
  // hence one flat directory, chunks included.
  "evaluator-worker": dist("agent", "thread/evaluator-worker.js"),
  "relay-main": dist("agent", "mcp/relay-main.js"),
  "format-worker": dist("language-server", "format-worker.js"),
};

/** The modules of packages/cli/src also built as classic scripts with a code cache (buildScripts). */
export const scriptNames = ["parsing", "check-analysis", "fast-commands"];

/**
 * What the fast-commands script must not hold (decision 0018): the agent runtime, the cassette
 * journal, traces and presets (the commands it runs need none of them: a replay with no agent
 * reads its cassette with the interpreter's reader, recording.ts; and the agent's SDKs are ES modules that a
 * script cannot require), and the parser and the analysis, which are scripts of their own. Their
 * imports in run-command.ts and programs.ts become modules that throw if ever loaded.
 */
const notInFastCommands = /^(\.\/(agent-run|early-agent|journal|presets|parsing|check-analysis)\.js|@patchwork\/agent(\/run)?)$/;

/** The workspace packages whose compiled code goes into the bundle. */
const bundledPackages = ["parser", "interpreter", "analysis", "agent", "fleet", "serve", "language-server", "cli"];

/** Every npm dependency of the CLI package stays an import of that package. */
const external = Object.keys(JSON.parse(readFileSync(join(cli, "package.json"), "utf8")).dependencies ?? {});

/**
 * The build's identity: a hash of every compiled file bundled (and the CLI's package.json).
 * The CLI's parse cache (packages/cli/src/cache.ts) keys its entries with it, so that an AST
 * or a check written by one build is never read by another.
 */
function buildId() {
  const h = createHash("sha256");
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".js")) files.push(path);
    }
  };
  for (const pkg of bundledPackages) {
    const dir = join(repo, "packages", pkg, "dist");
    if (existsSync(dir)) walk(dir);
  }
  for (const file of [...files, join(cli, "package.json")]) h.update(file.slice(repo.length)).update("\0").update(readFileSync(file)).update("\0");
  return h.digest("hex").slice(0, 32);
}

function newestInput() {
  let newest = 0;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      else if (name.endsWith(".js")) newest = Math.max(newest, s.mtimeMs);
    }
  };
  for (const pkg of bundledPackages) walk(join(repo, "packages", pkg, "dist"));
  // The build scripts, and the npm packages vendor-agent.script.js is made of (bundle-vendor-agent.mjs).
  const inputs = [fileURLToPath(import.meta.url), fileURLToPath(new URL("bundle-vendor-agent.mjs", import.meta.url)), join(cli, "package.json"), join(repo, "package-lock.json")];
  for (const file of inputs) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

// The parser's precomputed grammar analysis must match the grammar bundled (decision 0011):
// after a bare `tsc -b` it may not, and the bundle cannot check it at run time.
await generateParserTables();

const stamp = join(outdir, "index.js");
const force = process.argv.includes("--force");
if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput()) process.exit(0); // up to date

rmSync(outdir, { recursive: true, force: true });
const { parser, interpreter, agent, ...cliPoints } = entryPoints;
// __PATCHWORK_TABLES_CHECKED__: the parser's tables were checked against this code just above
// (packages/parser/src/precomputed.ts).
const define = { __PATCHWORK_BUILD_ID__: JSON.stringify(buildId()), __PATCHWORK_TABLES_CHECKED__: "true" };
// The parser's code for the cold paths as classic scripts with a V8 code cache (see buildScripts).
// The scripts' SHA-256 by name, for cache.ts `loadScript` (a JSON string: esbuild inlines it).
const scriptHashes = await buildScripts(define);
// The CLI's imports of the agent runtime's npm packages go to a script with a code cache too (decision 0019).
const vendorAgent = await buildVendorAgent({ outdir, cliDir: cli, loader: dist("cli", "vendor.js") });
scriptHashes["vendor-agent"] = createHash("sha256").update(readFileSync(join(outdir, "vendor-agent.script.js"))).digest("hex");
define.__PATCHWORK_SCRIPTS__ = JSON.stringify(JSON.stringify(scriptHashes));
for (const [group, points] of [["cli", cliPoints], ["lib", { parser, interpreter, agent }]]) await build({
  entryPoints: points,
  outdir,
  chunkNames: `${group}-[name]-[hash]`,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  define,
  plugins: group === "cli" ? [vendorAgent.plugin] : [],
  minifySyntax: true,
  legalComments: "none",
  logLevel: "error",
  banner: { js: "// GENERATED by scripts/bundle-cli.mjs from the packages' dist/; do not edit." },
});

// The launcher, bin/patchwork.js's first module, as CommonJS (decision 0020).
await buildLauncher(define);

/**
 * bundle/launch.cjs: packages/cli/src/launch.ts bundled as CommonJS, so that the command lines
 * it answers whole (`--version`, a `run` that the fast-commands script holds) start no ES module
 * loader. It holds the fast path's command line reading and the cache's script loader; the
 * fast-commands module is its script's (never imported here), and main.ts is imported by URL.
 */
async function buildLauncher(define) {
  const outfile = join(outdir, "launch.cjs");
  await build({
    ...commonJs(dist("cli", "launch.js"), outfile, { ...define, "import.meta.url": "__patchworkUrl" }),
    banner: { js: '// GENERATED by scripts/bundle-cli.mjs from the packages\' dist/; do not edit.\n"use strict";\nconst __patchworkUrl = require("node:url").pathToFileURL(__filename).href;' },
    plugins: [leaveOut(/^\.\/(fast-commands|check-analysis|parsing)\.js$/)],
  });
  const text = readFileSync(outfile, "utf8");
  const outside = text.match(/require\("(?!node:)[^"]*"\)/);
  if (outside) throw new Error(`launch.cjs must load no module but Node's built-in ones, not ${outside[0]}`);
}

/** esbuild's options for one CommonJS file of the bundle (the launcher, the classic scripts). */
function commonJs(entry, outfile, define) {
  return { entryPoints: [entry], outfile, bundle: true, format: "cjs", platform: "node", target: "node20", external, define, minifySyntax: true, legalComments: "none", logLevel: "error" };
}

/** An esbuild plugin: the imports matching `filter` become modules that throw when loaded. */
function leaveOut(filter) {
  return {
    name: "leave-out",
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: args.path, namespace: "left-out" }));
      b.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not part of this script (scripts/bundle-cli.mjs)`)});`,
        loader: "js",
      }));
    },
  };
}

/**
 * The cold paths' parser code as classic scripts, `bundle/<name>.script.js`, which
 * packages/cli/src/cache.ts (`loadScript`) compiles with `vm.Script` and a V8 code cache kept in the
 * user's cache directory (docs/cli.md, "The cache"; why: decision 0017): Node 20 caches no
 * compiled code of ES modules. Each is `cli/dist/<name>.js` bundled as CommonJS, whole (the few
 * small modules it shares with the run path, such as SourceFile, are copied: the results are
 * plain data), wrapped in a function of (exports, require, module, __patchworkUrl) that
 * `loadScript` calls; `require` is Node's, for built-in modules and npm dependencies.
 */
async function buildScripts(define) {
  const hashes = {};
  for (const name of scriptNames) {
    const outfile = join(outdir, `${name}.script.js`);
    // fast-commands loads the two others (their hashes: cache.ts `loadScript`).
    const scripts = name === "fast-commands" ? { __PATCHWORK_SCRIPTS__: JSON.stringify(JSON.stringify(hashes)) } : {};
    await build({
      ...commonJs(dist("cli", `${name}.js`), outfile, { ...define, ...scripts, "import.meta.url": "__patchworkUrl" }),
      // Strict, as the ES modules it is made of are.
      banner: { js: '// GENERATED by scripts/bundle-cli.mjs from the packages\' dist/; do not edit.\n(function (exports, require, module, __patchworkUrl) {"use strict";' },
      footer: { js: "})" },
      plugins: name === "fast-commands" ? [leaveOut(notInFastCommands)] : [],
    });
    const text = readFileSync(outfile, "utf8");
    const workspace = text.match(/require\("@patchwork\/[^"]*"\)/);
    if (workspace) throw new Error(`${name}.script.js must hold all of our code, not ${workspace[0]}`);
    // A script cannot load an ES module of ours, nor require an npm package that is one: the
    // fast-commands script requires none at all.
    const outside = name === "fast-commands" ? text.match(/\bimport\(|require\("(?!node:)[^"]*"\)/) : null;
    if (outside) throw new Error(`${name}.script.js must not load ${outside[0]}: leave the module that does out (notInFastCommands)`);
    // ASCII only, so that loadScript reads it as latin1 and V8 gets a one-byte string (half the
    // size of a two-byte one, scanned faster when a function is compiled): esbuild escapes
    // strings, templates, regexps and names already; what remains is in comments, where a
    // `\uXXXX` is as good (and would mean the same code unit anywhere else).
    const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    writeFileSync(outfile, ascii);
    hashes[name] = createHash("sha256").update(ascii).digest("hex");
  }
  return hashes;
}
