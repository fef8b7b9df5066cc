#!/usr/bin/env node
// Thin launcher: the CLI is bundled into ../bundle (scripts/bundle-cli.mjs, run by `npm run build`),
// so that Node loads a few modules instead of hundreds (start-up: docs/benchmarks.md).
import { main } from "../bundle/index.js";
main(process.argv.slice(2));
