/**
 * The asynchronous agent contract. Any object implementing `AsyncAgent` can answer the
 * think blocks of a program run on the evaluator thread (`runWithAgent`): the ACP runtime
 * (`AcpAgent`) is one implementation; library users can plug in their own.
 */
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk/unstable";
import type { ChildResult, PwEvent, ThinkRequest } from "@patchwork/interpreter";
import type { UsageFigures } from "./acp/turn-record.js";
import type { RunTotals } from "./batch/run-totals.js";

/** Runs `do` child `index` of the think on the evaluator thread; resolves with its text or error. */
export type AsyncRunChild = (index: number) => Promise<ChildResult>;

/**
 * An asynchronous think answer. `followUp` continues the same conversation once (the
 * interpreter's typed-result repair turn); omit it if the agent cannot continue.
 */
export interface AsyncThinkReply {
  text: string;
  followUp?: (message: string, runChild: AsyncRunChild, signal: AbortSignal) => Promise<AsyncThinkReply>;
  /** Called once when no follow-up will come: the agent may free the conversation. */
  done?: () => void;
}

/** Extra facts about one think the runtime passes to the agent. */
export interface ThinkContext {
  /** Runtime-wide think number (1, 2, …), as in `RunEvent`s. */
  thinkId: number;
  /** Emits a progress event (agent text, tool calls…) for this think. */
  emit(event: AgentEvent): void;
  /**
   * The evaluator thread the think comes from ("main", or a worker task such as
   * "task_a#2"): thinks of one thread nest, thinks of different threads run side by side.
   */
  worker?: string;
  /**
   * Working directory for the think's session at the agent (absolute). Default: the agent's
   * (`AcpAgentOptions.cwd`). The proxy sets it to the panel session's directory.
   */
  cwd?: string;
}

export interface AsyncAgent {
  /**
   * Answers one think. Throw (or reject with) an `AgentError` with a PW4xxx code for
   * failures; the interpreter turns it into a runtime error at the think's position.
   * `runChild` may be called any number of times before the promise settles, never after.
   */
  think(
    request: ThinkRequest,
    runChild: AsyncRunChild,
    signal: AbortSignal,
    context: ThinkContext,
  ): Promise<AsyncThinkReply>;
  /** Releases everything (processes, servers). Called once when the run ends. */
  close?(): Promise<void>;
  /** What the program's text says before it runs, for an agent that makes sessions ahead of need. */
  prepare?(hint: SessionHint): void;
}

/** Sent before a program runs: how many think blocks its text (and its imports') contains. */
export interface SessionHint {
  thinks: number;
  /** The sessions' directory (default the agent's). */
  cwd?: string;
}

/** Progress events coming from the agent side (not from the evaluator). */
export type AgentEvent =
  | { type: "agent-started"; pid: number; agentName: string | null; protocolVersion: number; transport: McpTransport | null }
  /** The agent process is being replaced between thinks after `sessions` thinks had a session of it (`RecyclingAgent`). */
  | { type: "agent-restarting"; pid: number | null; sessions: number; limit: number }
  /**
   * A session is being made ahead of need (docs/agent.md): for the program's first think
   * (`start`), for the thinks inside a think's `do` blocks (`nested`), for a loop's next think
   * (`next`); `worker`, the evaluator thread it is for (null: any).
   */
  | { type: "session-ahead"; reason: "start" | "nested" | "next"; worker: string | null }
  /** Message text as it streams (preambles included; the think's value is only the final message). */
  | { type: "agent-text"; thinkId: number; text: string; messageId: string | null }
  | { type: "agent-thought"; thinkId: number; text: string }
  /** A notice for the user (ACP `notice`, or an id-less text chunk from an agent that uses message ids). */
  | { type: "agent-notice"; thinkId: number; severity: string; text: string }
  | {
      type: "tool-call";
      thinkId: number;
      toolCallId: string;
      title: string;
      status: string;
      /** A call of Patchwork's own `do` tool (by the agent profile); its block shows as `do-start`/`do-end` too. */
      ours?: true;
      kind?: string;
      /** The tool call's content as the agent sent it (text, diffs, terminals), when it sent any. */
      content?: ToolCallContent[];
      /** The files the tool call works on, as the agent sent them. */
      locations?: ToolCallLocation[];
      rawInput?: unknown;
      rawOutput?: unknown;
    }
  | { type: "permission"; thinkId: number | null; title: string; decision: "allow" | "deny" | "cancelled" }
  /** The think's session: `ahead`, one made ahead of need (docs/agent.md). */
  | { type: "session"; thinkId: number; sessionId: string; transport: McpTransport | null; ahead?: boolean }
  /** Tokens and cost of one think's turn (figures new since its previous `usage` event: sum them). */
  /** `contextSize`: the context window's size in tokens, as the agent's last `usage_update` said (when it did). */
  | { type: "usage"; thinkId: number; usage: UsageFigures; contextSize?: number }
  /** Something went wrong but the run goes on (a `do` call that failed and that the model then redid). */
  | { type: "warning"; thinkId: number | null; code: string; message: string; fileName?: string; line?: number; column?: number }
  | { type: "anomaly"; code: string; message: string }
  /**
   * A worker task started on an evaluator thread (`worker`: its key, `NAME#N`; `thread`: the
   * thread's number in the run, 1 being the program's), and ended.
   */
  | { type: "task-start"; worker: string; thread?: number }
  | { type: "task-end"; worker: string; ok: boolean }
  | { type: "agent-stderr"; text: string }
  /**
   * A fork-join group of worker tasks starts (`self.delegate([...])`, the pool's group logic):
   * `group` names it in the run, `owner` is the evaluator that delegates ("main" or a task's
   * key), `labels` the tasks (worker name and arguments, shortened), `total` their number.
   */
  | { type: "delegate-start"; group: string; owner: string; total: number; labels: string[] }
  | { type: "delegate-end"; group: string; ok: boolean }
  /**
   * A think failed for a reason that may pass (an overload or rate limit of the agent's model,
   * the agent's silence past the idle timeout) and is asked again in a fresh session after
   * `delayMs` (`RetryingAgent`, docs/agent.md "Retries"): `attempt` of `retries`.
   */
  | { type: "think-retry"; thinkId: number; attempt: number; retries: number; delayMs: number; reason: string; code?: string }
  /**
   * The run's governor (`Governor`, docs/agent.md "The governor"): thinks in flight
   * (`concurrency`), how many it lets run at once now (`limit`), the `--rate` cap per minute, and
   * why it holds new thinks back, if it does.
   */
  | {
      type: "governor";
      concurrency: number;
      limit: number;
      rate: number | null;
      holding: null | { reason: "rate" | "overload" | "cpu" | "memory"; detail: string };
    }
  /**
   * The run stopped before a think because of its budget (`--max-thinks`, `--budget`;
   * batch/budget.ts): `limit` and `spent` as a user reads them ("3 thinks", "0.3500 USD").
   */
  | { type: "budget-stop"; kind: "thinks" | "cost" | "tokens"; limit: string; spent: string }
  /** What the run asked, replayed, retried and spent (batch/totals.ts): emitted once, as the run ends. */
  | { type: "run-totals"; totals: RunTotals };

/**
 * Everything `onEvent` receives: the evaluator's own events (print, think-start with
 * FILE:LINE, do-start/end, …; `think-start`/`think-end` ids are the interpreter's) plus
 * agent events.
 */
export type RunEvent = PwEvent | AgentEvent;

export type McpTransport = "http" | "stdio" | "acp";

export type PermissionPolicy = "allow" | "deny" | "ask";

/** What `askPermission` gets: the agent's request, reduced to what a terminal prompt needs. */
export interface PermissionQuestion {
  sessionId: string;
  title: string;
  toolName: string | null;
  toolCallId: string;
  rawInput: unknown;
  /** True when the tool is our own `do` tool (by the agent profile's structural check, never the title). */
  isDoTool: boolean;
  options: { optionId: string; name: string; kind: string }[];
}

/** The answer: allow or deny this one call. */
export type PermissionAnswer = "allow" | "deny";

/** A small logger; the library never writes to the console itself. */
export interface Logger {
  debug?(message: string): void;
  warn(message: string): void;
}
