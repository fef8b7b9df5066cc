// Builds the extension: bundles the client (with vscode-languageclient) into one CommonJS file
// and copies the generated TextMate grammar. `npm run package` then makes the .vsix offline.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
mkdirSync(join(here, "syntaxes"), { recursive: true });
copyFileSync(join(here, "../../grammar/patchwork.tmLanguage.generated.json"), join(here, "syntaxes/patchwork.tmLanguage.json"));
await build({
  entryPoints: [join(here, "src/extension.js")],
  bundle: true,
  platform: "node",
  target: "node18",
  format: "cjs",
  external: ["vscode"],
  outfile: join(here, "dist/extension.js"),
  minify: true,
  logLevel: "warning",
});
