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
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
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
export const scriptNames = ["parsing", "check-analysis"];

/** The workspace packages whose compiled code goes into the bundle. */
const bundledPackages = ["parser", "interpreter", "analysis", "agent", "serve", "language-server", "cli"];

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
await buildScripts(define);
define.__PATCHWORK_SCRIPTS__ = "true";
// The CLI's imports of the agent runtime's npm packages go to a script with a code cache too (decision 0019).
const vendorAgent = await buildVendorAgent({ outdir, cliDir: cli, loader: dist("cli", "vendor.js") });
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
  for (const name of scriptNames) {
    const outfile = join(outdir, `${name}.script.js`);
    await build({
      entryPoints: [dist("cli", `${name}.js`)],
      outfile,
      bundle: true,
      format: "cjs",
      platform: "node",
      target: "node20",
      external,
      define: { ...define, "import.meta.url": "__patchworkUrl" },
      minifySyntax: true,
      legalComments: "none",
      logLevel: "error",
      banner: { js: "// GENERATED by scripts/bundle-cli.mjs from the packages' dist/; do not edit.\n(function (exports, require, module, __patchworkUrl) {" },
      footer: { js: "})" },
    });
    const workspace = readFileSync(outfile, "utf8").match(/require\("@patchwork\/[^"]*"\)/);
    if (workspace) throw new Error(`${name}.script.js must hold all of our code, not ${workspace[0]}`);
  }
}
