#!/usr/bin/env node
// Thin launcher: the CLI itself is compiled TypeScript in ../dist.
import { main } from "../dist/index.js";
main(process.argv.slice(2));
