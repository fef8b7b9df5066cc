#!/usr/bin/env node
// Thin launcher: the CLI is bundled into ../bundle (scripts/bundle-cli.mjs, run by `npm run build`),
// so that Node loads a few modules instead of hundreds (start-up: docs/benchmarks.md). This file and
// bundle/launch.cjs are CommonJS (./package.json): the commands the launcher answers whole start no
// ES module loader (decision 0020).
"use strict";
require("../bundle/launch.cjs").launch(process.argv.slice(2));
