/**
 * What an ACP agent is asked for at start-up (`AcpAgent.start`): the options of the runtime.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type {
  AgentEvent,
  Logger,
  McpTransport,
  PermissionAnswer,
  PermissionPolicy,
  PermissionQuestion,
} from "../types.js";
import type { AgentProcess, AgentCommand } from "./process.js";
import type { AheadLimits } from "./sessions-ahead.js";

export interface AcpAgentOptions {
  /** A shell command line (`"npx my-agent --acp"`) or a file with arguments. */
  command: AgentCommand;
  /** Working directory of the agent and of every session (absolute). Default: `process.cwd()`. */
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** `auto` (default): http when the agent advertises `mcpCapabilities.http`, else stdio. */
  mcpTransport?: McpTransport | "auto";
  permissions?: PermissionPolicy | { do?: PermissionPolicy; other?: PermissionPolicy };
  askPermission?: (question: PermissionQuestion) => Promise<PermissionAnswer>;
  /** Fail a think when the agent sends nothing for this long (time inside `do` children excluded). */
  thinkIdleTimeoutMs?: number;
  /** Fail a think that takes longer than this in total. */
  thinkTimeoutMs?: number;
  /** How long `initialize` may take before the process is declared not an ACP agent. Default 30 s. */
  initializeTimeoutMs?: number;
  onEvent?: (event: AgentEvent) => void;
  logger?: Logger;
  /**
   * Restart the agent process between thinks after this many sessions (`RecyclingAgent`); 0
   * never. Default: the agent profile's `restartAfterSessions` (none for most agents).
   */
  restartAfterSessions?: number;
  /** Abandons start-up when aborted: the process is killed and `start` rejects (PW4010). */
  startSignal?: AbortSignal;
  /**
   * The agent process, already spawned from `command` (`@patchwork/agent/process`): the CLI
   * spawns it before it loads this runtime, so that the two start side by side. Used by the
   * first start only (a restart spawns anew).
   */
  process?: AgentProcess;
  /**
   * Create sessions ahead of need, from what the program's text and the run say (default
   * true; `SessionsAhead`, docs/agent.md). Unused ones are closed when the runtime closes.
   */
  prepareSessions?: boolean;
  /** Bounds of the sessions made ahead (default: the agent profile's, else `DEFAULT_AHEAD`). */
  sessionsAhead?: AheadLimits;
  /**
   * What the client behind this one can do (the editor behind `patchwork acp`): advertised to
   * the agent at `initialize`; its `fs/*` and `terminal/*` requests go to `forwardClientRequest`.
   */
  clientCapabilities?: { fs?: { readTextFile?: boolean; writeTextFile?: boolean }; terminal?: boolean };
  forwardClientRequest?: (method: string, params: unknown) => Promise<unknown>;
  /**
   * A permission request that is not for our `do` tool: answered by this callback when it
   * returns a promise (the proxy asks its editor), else by `permissions`.
   */
  forwardPermission?: (params: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse> | undefined;
}
