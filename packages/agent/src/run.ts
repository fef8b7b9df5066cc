/**
 * `@patchwork/agent/run`: `runWithAgent` and what its caller needs, without the ACP and MCP
 * SDKs or zod (the package's index loads them, for the test agent, the trace schema and the
 * `do` server). `runWithAgent` imports the ACP runtime when its agent starts: a replay
 * (`patchwork run --resume`) runs its replayed thinks while that loads. Everything here is also
 * exported by `@patchwork/agent`.
 */
export { runWithAgent } from "./thread/run.js";
export { EvaluatorThreadAhead, type EvaluatorThreadAheadOptions } from "./thread/ahead.js";
export type { ParsedProgram, RunWithAgentOptions, RunWithAgentResult } from "./thread/run.js";
export type { AcpAgentOptions } from "./acp/agent.js";
export { addUsage, emptyUsage, type UsageFigures } from "./acp/turn-record.js";
export { BUDGET_EXIT_STATUS, BudgetGate, describeBudget, parseBudget, type BudgetAmount, type BudgetLimits, type BudgetStop } from "./batch/budget.js";
export { formatTotals, groupDigits, RunTotalsCounter, type RunTotals, type SessionUsageFigures } from "./batch/totals.js";
export type { AsyncAgent, PermissionAnswer, PermissionQuestion, RunEvent } from "./types.js";
export { ProgressModel, ETA_AFTER, type ProgressList, type ProgressListView, type ProgressSnapshot } from "./progress/model.js";
