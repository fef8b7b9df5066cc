/**
 * @patchwork/interpreter: the evaluator, its ports (Agent, Host) and their in-process
 * implementations (NoAgent, ScriptedAgent, the Node host).
 */
export { AgentError } from "./ports.js";
export type {
  DelegateMode,
  JoinResult,
  TaskOutcome,
  ReceiveResult,
  SessionUsage,
  WorkerFailure,
  WorkerTask,
  Workers,
  Agent,
  ChildResult,
  Host,
  JsonValue,
  PwEvent,
  RunChild,
  ShellOptions,
  ShellResult,
  ThinkAnswer,
  ThinkReply,
  ThinkRequest,
} from "./ports.js";
export { createSession, run, runParsed } from "./run.js";
export type { RunOptions, RunResult, Session } from "./run.js";
export { Interpreter, parseModule, runtimeDiagnostic } from "./interpreter.js";
export { InterpreterCore, importedModule } from "./interpreter-core.js";
export type { Resumable, Wait, WaitAnswer } from "./compiler/resumable.js";
export { importedFiles, importPath, moduleDir } from "./modules.js";
export type { ParseFn } from "./modules.js";
export type { InterpreterOptions } from "./interpreter.js";
export type { Limits } from "./runtime.js";
export { DEFAULT_MAX_DEPTH } from "./runtime.js";
export { NoAgent } from "./agents/no-agent.js";
export { ScriptedAgent } from "./agents/scripted.js";
export type { Script, ScriptStep, ScriptedThinkRecord } from "./agents/scripted.js";
export { CassetteAgent } from "./agents/cassette.js";
export type { CassetteAgentOptions } from "./agents/cassette.js";
export { CassetteRecorder } from "./cassette/recorder.js";
export { CassetteJournal, JournaledRecording, sameExchange } from "./cassette/journal.js";
export type { RecordingSummary } from "./cassette/journal.js";
export {
  CASSETTE_VERSION,
  CassetteError,
  formatCassette,
  lineColumn,
  lineDiff,
  parseCassette,
  parseJsonText,
  readCassetteText,
} from "./cassette/format.js";
export type { Cassette, CassetteDo, CassetteThink, CassetteTurn, ReadCassette } from "./cassette/format.js";
export { createNodeHost } from "./host-node.js";
export { countThinks, countThreadbareThinks, mayThink } from "./think-sites.js";
export { writeFileAtomic, type WriteGuard } from "./write-file.js";
export type { NodeHostOptions } from "./host-node.js";
export { shellArgv, signalStatus, type ShellArgvOptions } from "./shell-process.js";
export { ENV_VALUES_MAX, shellValues, type ShellValues } from "./shell-values.js";
export { RuntimeError, RUNTIME_MESSAGES, isFatalCode } from "./errors.js";
export type { RuntimeCode } from "./errors.js";
export { PwBuiltin, PwFunction, deepEqual, fromJson, stringifyJson, toJson, toText, truthy, typeName } from "./values.js";
export type { PwObject, Value } from "./values.js";
export { parseJson } from "./json.js";
export { listEntries, findEntry, defaultEntry, convertArgs, entryResultText, valueText } from "./entries.js";
export type { EntryInfo, EntryParam, EntryArgs } from "./entries.js";
export { InThreadWorkers, failureOf } from "./workers/in-thread.js";
export type { DelegateNote, TaskRunner } from "./workers/in-thread.js";
export { ulid, newSession, ensureSessionDir, removeSessionDir } from "./workers/session.js";
export type { SessionInfo } from "./workers/session.js";
export { PwOpaque } from "./values.js";
export { shellQuote, shellEscapeDouble } from "./compiler/shell.js";
export { DO_NOTE } from "./compiler/prompt.js";
/** The builtin table and std modules, for static analysis (names, arity). */
export { BUILTINS, STD_MODULES } from "./builtins/index.js";
export { PROGRAM_ARGS } from "./compiler/expr.js";
export { arityText } from "./builtins/types.js";
export type { BuiltinDef } from "./builtins/types.js";
