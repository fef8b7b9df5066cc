/**
 * The parser's one door to Chevrotain. Every module imports Chevrotain through here, so the
 * build can replace the compiled `dist/chevrotain.js` with a single pre-bundled module
 * (scripts/bundle-vendor.mjs): loading Chevrotain's ~650 lodash-es files one by one costs
 * the CLI most of its start-up time. Without that step this re-export works the same, slower.
 */
export * from "chevrotain";
