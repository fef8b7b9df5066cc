#!/usr/bin/env node
// Regenerates grammar/diagrams.generated.html and grammar/patchwork.tmLanguage.generated.json
// from the parser (build it first: `npx tsc -b packages/parser`). Run with `npm run grammar`.
// packages/parser/test/grammar.test.ts fails when the committed files are stale.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { grammarFiles } from "@patchwork/parser";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "grammar");
for (const [name, text] of Object.entries(grammarFiles())) {
  writeFileSync(join(out, name), text);
  process.stdout.write(`wrote grammar/${name}\n`);
}
