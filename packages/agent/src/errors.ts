/**
 * PW4xxx agent error codes (listed with examples in docs/errors/agent.md).
 * One table, one constructor: call sites name a code, the wording lives here.
 */
import { AgentError } from "@patchwork/interpreter/core";

export const AgentCodes = {
  /** The agent command could not be started. */
  spawnFailed: "PW4001",
  /** The process does not speak ACP (no/invalid `initialize` answer). */
  notAcpAgent: "PW4002",
  /** The agent answered `initialize` with a protocol version we do not speak. */
  protocolVersion: "PW4003",
  /** The agent process exited or crashed while we needed it. */
  agentExited: "PW4004",
  /** The agent wrote something that is not JSON-RPC to its stdout. */
  garbage: "PW4005",
  /** A think got no answer within the idle or total timeout. */
  timeout: "PW4006",
  /** The agent refused (`stopReason: refusal`). */
  refusal: "PW4007",
  /** The agent hit its token limit (`stopReason: max_tokens`). */
  maxTokens: "PW4008",
  /** The agent hit its turn-request limit (`stopReason: max_turn_requests`). */
  maxTurnRequests: "PW4009",
  /** The turn or the run was cancelled (Ctrl-C, signal, `stopReason: cancelled`). */
  cancelled: "PW4010",
  /** The agent called `do` for a think whose turn had already ended. */
  doAfterEnd: "PW4011",
  /** The requested MCP transport is not available with this agent. */
  transport: "PW4012",
  /** An ACP request (`session/new`, `session/prompt`…) failed. */
  requestFailed: "PW4013",
  /** The evaluator thread failed unexpectedly. */
  evaluatorCrashed: "PW4014",
  /** A message for a session that is not the top of the redirect stack (warning). */
  anomaly: "PW4015",
  /** The agent's call of a `do` block was denied (permission policy, the user, or cancelled). */
  doDenied: "PW4016",
  /** A `do` block failed, or the agent's call of it failed before it reached Patchwork. */
  doFailed: "PW4017",
  /** The agent called `do` with a number that is not a block of the think. */
  doUnknownBlock: "PW4018",
  /** The think has `do` blocks but the agent never offered the `do` tool to its model. */
  doNotOffered: "PW4019",
  /** A think answered through MCP sampling has `do` blocks, and the client's sampling offers no tools. */
  samplingWithoutTools: "PW4020",
  /** The run stopped before a think that would have passed its budget (`--max-thinks`, `--budget`): exit status 3. */
  budgetStop: "PW4030",
  /** (warning) The agent reports no cost, so a `--budget` in money cannot be kept; tokens are counted. */
  noCost: "PW4031",
} as const;

export type AgentCode = (typeof AgentCodes)[keyof typeof AgentCodes];

export function agentError(code: AgentCode, message: string): AgentError {
  return new AgentError(code, message);
}

export function isAgentError(error: unknown): error is AgentError {
  return (
    error instanceof AgentError ||
    (typeof error === "object" &&
      error !== null &&
      (error as { name?: unknown }).name === "AgentError" &&
      typeof (error as { code?: unknown }).code === "string")
  );
}

/** Any thrown value as an AgentError (unknown failures become `fallback`). */
export function toAgentError(error: unknown, fallback: AgentCode = AgentCodes.requestFailed): AgentError {
  if (error instanceof AgentError) return error;
  if (isAgentError(error)) {
    const like = error as { code: string; message: string };
    return new AgentError(like.code, like.message);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AgentError(fallback, message);
}
