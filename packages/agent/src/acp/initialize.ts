/**
 * The start of an ACP agent (`AcpAgent.start`): the `initialize` handshake (the client
 * capabilities offered, the protocol version checked, a process that is no ACP agent told
 * apart), the `do` server's transport chosen from its answer, the agent's requests a proxy
 * forwards to its own client, and a start abandoned when the run is cancelled.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { AgentCodes, agentError } from "../errors.js";
import type { McpTransport } from "../types.js";
import type { AcpAgentOptions } from "./agent-options.js";
import type { AgentProcess } from "./process.js";

/** Requests of the agent that a proxy forwards to its own client. */
export const CLIENT_REQUESTS = [
  acp.methods.client.fs.readTextFile,
  acp.methods.client.fs.writeTextFile,
  acp.methods.client.terminal.create,
  acp.methods.client.terminal.output,
  acp.methods.client.terminal.release,
  acp.methods.client.terminal.waitForExit,
  acp.methods.client.terminal.kill,
] as const;

const CLIENT_INFO = { name: "patchwork", version: "0.1.0" };

/** A promise that rejects (PW4010) when `signal` aborts; `dispose` stops listening. */
export function abandonedWhen(signal: AbortSignal | undefined): { promise: Promise<never>; dispose(): void } {
  if (!signal) return { promise: new Promise<never>(() => undefined), dispose: () => undefined };
  let onAbort = () => undefined as void;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(agentError(AgentCodes.cancelled, "the run was cancelled while the agent was starting"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

export async function initialize(
  child: AgentProcess,
  connection: acp.ClientConnection,
  timeoutMs: number,
  forwarded: AcpAgentOptions["clientCapabilities"],
): Promise<acp.InitializeResponse> {
  // A fault of the process already ends with the agent's stderr: say it once.
  const notAgent = (why: string) => {
    const stderr = why.includes("\nagent stderr:\n") ? "" : child.stderrSuffix();
    // /bin/sh's "not found" (exit 127): the command is missing, not a program that failed to speak ACP.
    const what = /exited with code 127\b/.test(why) ? "the agent command was not found (is it installed and on PATH?)" : "the agent command is not an ACP agent";
    return agentError(AgentCodes.notAcpAgent, `${what}: ${why}${stderr}`);
  };
  let timer: NodeJS.Timeout | undefined;
  const faulted = new Promise<never>((_, reject) => {
    const fail = () => {
      const fault = child.fault!;
      reject(fault.code === AgentCodes.spawnFailed ? agentError(fault.code, fault.message) : notAgent(fault.message));
    };
    if (child.fault) fail();
    child.onFault(fail);
    timer = setTimeout(() => reject(notAgent(`no answer to initialize within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const request: Promise<acp.InitializeResponse> = connection.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      // `session.notices`: agents (Codex) then send warnings as `notice` updates, not as message text.
      clientCapabilities: {
        fs: { readTextFile: forwarded?.fs?.readTextFile === true, writeTextFile: forwarded?.fs?.writeTextFile === true },
        terminal: forwarded?.terminal === true,
        session: { notices: {} },
      },
      clientInfo: CLIENT_INFO,
    });
    const response = await Promise.race([request, faulted]);
    if (response.protocolVersion !== acp.PROTOCOL_VERSION) {
      throw agentError(
        AgentCodes.protocolVersion,
        `the agent speaks ACP protocol version ${response.protocolVersion}; patchwork speaks version ${acp.PROTOCOL_VERSION}`,
      );
    }
    return response;
  } catch (error) {
    if ((error as { code?: unknown }).code && String((error as { code: unknown }).code).startsWith("PW")) throw error;
    const fault = await child.settle();
    if (fault) throw fault.code === AgentCodes.spawnFailed ? agentError(fault.code, fault.message) : notAgent(fault.message);
    throw notAgent(error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
  }
}

/** The transport for the `do` server, or why there is none (thinks with `do` blocks then fail, others run). */
export function chooseTransport(
  wanted: McpTransport | "auto",
  init: acp.InitializeResponse,
): { transport: McpTransport | null; problem: string | null } {
  const mcp = init.agentCapabilities?.mcpCapabilities as { http?: boolean; acp?: boolean } | undefined;
  if (wanted === "auto") return { transport: mcp?.http ? "http" : "stdio", problem: null };
  if (wanted === "http" && !mcp?.http)
    return { transport: null, problem: "MCP transport http was requested, but the agent does not advertise mcpCapabilities.http" };
  if (wanted === "acp" && !mcp?.acp)
    return { transport: null, problem: "MCP transport acp was requested, but the agent does not advertise mcpCapabilities.acp" };
  return { transport: wanted, problem: null };
}
