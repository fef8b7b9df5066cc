/** @patchwork/language-server: `patchwork lsp`, a thin LSP layer over @patchwork/analysis. */
export { startLanguageServer, MAX_ANALYSED_CHARS } from "./server.js";
export type { ServerOptions } from "./server.js";
export { bareCommandFix, suggestsShellLine } from "./actions.js";
