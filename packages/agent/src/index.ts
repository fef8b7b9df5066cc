/**
 * @patchwork/agent — runs Patchwork programs with an asynchronous agent: the evaluator
 * thread, the ACP client runtime (client loop, redirect actor, think handlers), the MCP
 * `do` server (http, stdio relay, acp), and the scripted ACP test agent. Patchwork served to
 * other tools (the ACP proxy, the MCP server) is @patchwork/serve, above this package.
 */
export { runWithAgent } from "./thread/run.js";
export type { ParsedProgram, RunWithAgentOptions, RunWithAgentResult } from "./thread/run.js";
export { EvaluatorThreadAhead, type EvaluatorThreadAheadOptions } from "./thread/ahead.js";
export type { ParsedModules, SessionEntry } from "./thread/protocol.js";
export { ThinkNumbers, type RootEnd, type TaskReports, type TaskScheduler, type TaskSchedulerFactory } from "./thread/scheduler.js";
export type { TaskRun } from "./thread/thread-host.js";
export type { MailboxStore, MailboxStoreFactory } from "./thread/mailboxes.js";
export { TaskHost, type HostedResult, type HostedTask, type TaskHostOptions } from "./thread/task-host.js";
export { AcpAgent, spawnAcpAgent } from "./acp/agent.js";
export { RecyclingAgent } from "./acp/recycling.js";
export type { AcpAgentOptions } from "./acp/agent.js";
export type { AgentCommand } from "./acp/process.js";
export { profileFor, genericProfile, isOurDoTool } from "./acp/profiles/index.js";
export type { AgentProfile, PermissionToolCall } from "./acp/profiles/index.js";
export { runMcpRelay, relayScriptPath } from "./mcp/relay.js";
export { DO_TOOL_DESCRIPTION, MCP_SERVER_NAME } from "./mcp/do-server.js";
export { runTestAgentMain } from "./test-agent/main.js";
export { AgentCodes, toAgentError } from "./errors.js";
export { TraceWriter } from "./trace/writer.js";
export type { TraceRunEnd, TraceRunInfo, TraceWriterOptions } from "./trace/writer.js";
export { readTrace, readTraceFile, TraceReader, TraceError, MAX_TRACE_LINE, type TraceReadOptions, type TraceReadSummary } from "./trace/read.js";
export { TRACE_VERSION, traceRecord } from "./trace/schema.js";
export type { TracePosition, TraceRecord } from "./trace/schema.js";
export { addUsage, emptyUsage } from "./acp/turn-record.js";
export { BUDGET_EXIT_STATUS, BudgetGate, describeBudget, parseBudget, type BudgetAmount, type BudgetLimits, type BudgetStop } from "./batch/budget.js";
export { formatTotals, groupDigits, RunTotalsCounter, type RunTotals, type SessionUsageFigures } from "./batch/totals.js";
export type { UsageFigures } from "./acp/turn-record.js";
export type { AgentCode } from "./errors.js";
export type {
  AgentEvent,
  AsyncAgent,
  SessionHint,
  AsyncRunChild,
  AsyncThinkReply,
  Logger,
  McpTransport,
  PermissionAnswer,
  PermissionPolicy,
  PermissionQuestion,
  RunEvent,
  ThinkContext,
} from "./types.js";
export { RetryingAgent, type RetryingOptions } from "./batch/retrying.js";
export { Governor, realClock, type Clock, type GovernorOptions, type Ticket } from "./batch/governor.js";
export { withBatchPolicy, type BatchPolicyOptions } from "./batch/policy.js";
export { TASKS_PER_THREAD } from "./thread/local-threads.js";
export { LocalRateLimiter, startsPerWindow, type RateLimiter } from "./batch/rate.js";
export { genericTransient, overloadIn, retryAfterIn, type Classify, type ThinkFailure, type Transient } from "./batch/transient.js";
export { DEFAULT_BACKOFF, retryDelay, type BackoffPolicy } from "./batch/backoff.js";
export { machineProbe, type MachineProbe, type MachineReading } from "./batch/machine.js";
export { EvaluatorSession } from "./thread/session.js";
export type { EvaluatorSessionOptions, ProgramHandlers, ProgramResult } from "./thread/session.js";
export { ProgressModel, ETA_AFTER, type ProgressList, type ProgressListView, type ProgressSnapshot } from "./progress/model.js";
export { ShellRunner, type ShellRunnerOptions } from "./thread/shell.js";
