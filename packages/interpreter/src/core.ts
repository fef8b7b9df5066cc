/**
 * `@patchwork/interpreter/core`: the interpreter without the parser. Runs programs already
 * parsed (`runParsed`, `InterpreterCore`), with the parse of imported modules supplied by the
 * caller; importing this never loads Chevrotain (the CLI's parse cache, decision 0010).
 * Everything here is also exported by `@patchwork/interpreter`.
 */
export { AgentError } from "./ports.js";
export type { Agent, Host, JsonValue, PwEvent, RunChild, ThinkReply, ThinkRequest } from "./ports.js";
export { runParsed, type RunOptions, type RunResult } from "./run-parsed.js";
export { InterpreterCore, importedModule, runtimeDiagnostic, type InterpreterOptions } from "./interpreter-core.js";
export { importedFiles, importPath, moduleDir, type ParseFn } from "./modules.js";
export { NoAgent } from "./agents/no-agent.js";
export { CassetteAgent } from "./agents/cassette.js";
export { createNodeHost } from "./host-node.js";
export { shellArgv, signalStatus } from "./shell-process.js";
export { ENV_VALUES_MAX, shellValues, type ShellValues } from "./shell-values.js";
// The evaluator thread runtime's (@patchwork/agent): its main-thread side loads no parser.
export { isFatalCode } from "./errors.js";
export { newSession, ensureSessionDir, removeSessionDir, NOTHING_SPENT } from "./workers/session.js";
export { entryResultText, valueText } from "./entries.js";
export { countThinks, countThreadbareThinks, mayThink } from "./think-sites.js";
// What replaying a cassette needs (the CLI's `--replay` loads no parser; CassetteAgent has these modules already).
export { CassetteError, readCassetteText, type Cassette, type ReadCassette } from "./cassette/format.js";
