/**
 * One MCP tool call: a run of its own of the tool's entry through the agent runtime
 * (`runWithAgent`: own evaluator thread, own `self.session` id and dir, own agent process or
 * sampling agent), with the call's arguments as typed data. Its result is the entry's result
 * as text (`entryResultText`: what it printed, the answers of statement thinks, its value);
 * an error of the run is a tool result with `isError: true` and the positioned message.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { runWithAgent, type AsyncAgent, type RunEvent } from "@patchwork/agent";
import { entryResultText, type JsonValue } from "@patchwork/interpreter";
import { SourceFile } from "@patchwork/parser";
import { diagnosticsText } from "../diagnostics.js";
import type { McpTool } from "./catalog.js";
import { CallProgress, type ProgressNote } from "./progress.js";

/** How thinks are answered in a call: an ACP agent command, an AsyncAgent (sampling), or none. */
export type ThinkAnswerer = { command: string } | { agent: AsyncAgent } | null;

export interface ToolCallOptions {
  tool: McpTool;
  arguments: Record<string, unknown>;
  answerer: ThinkAnswerer;
  signal: AbortSignal;
  /** The skill's working directory (the server's). */
  cwd: string;
  /** A progress notification's content (mcp/progress.ts): a list's items done of all, or a think started or finished, a shell command ran. */
  onProgress?: (note: ProgressNote) => void;
  maxWorkers?: number;
  env?: Record<string, string | undefined>;
  /** Per-think idle limit of an ACP agent. */
  thinkIdleTimeoutMs?: number;
  /** Stop the call's run after this long. */
  timeoutMs?: number;
  /** The answer to permission requests for tools other than `do` (default deny). */
  permissions?: "allow" | "deny";
  /** Every event of the call's run. */
  onEvent?: (event: RunEvent) => void;
}

export const NO_AGENT_NOTE =
  "(patchwork mcp has no agent: its think blocks evaluated to their prompts. Start it with --agent claude|codex|gemini|opencode|qwen|copilot|\"<command>\", or from a client that offers sampling.)";

export async function callTool(options: ToolCallOptions): Promise<CallToolResult> {
  const { tool } = options;
  const args = argumentList(tool, options.arguments);
  if (typeof args === "string") return errorResult(args);
  let thinks = 0;
  const progress = options.onProgress ? new CallProgress(options.onProgress) : null;
  const onEvent = (event: RunEvent) => {
    if (event.type === "think-start") thinks++;
    options.onEvent?.(event);
    progress?.event(event);
  };
  const answerer = options.answerer;
  const result = await runWithAgent({
    source: tool.source,
    fileName: tool.file,
    cwd: options.cwd,
    entry: tool.entry,
    parsed: tool.parsed,
    args,
    agent: answerer === null ? null : "command" in answerer ? { command: answerer.command } : answerer.agent,
    permissions: { do: "allow", other: options.permissions ?? "deny" },
    signal: options.signal,
    onEvent,
    writeOutput: false,
    shellStdin: "ignore",
    ...(options.maxWorkers !== undefined ? { maxWorkers: options.maxWorkers } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.thinkIdleTimeoutMs !== undefined ? { thinkIdleTimeoutMs: options.thinkIdleTimeoutMs } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const note = answerer === null && thinks > 0 ? `\n${NO_AGENT_NOTE}\n` : "";
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (!result.ok || errors.length > 0) {
    const before = result.output === "" ? "" : result.output.endsWith("\n") ? result.output : `${result.output}\n`;
    return errorResult(`${before}${diagnosticsText(errors, new SourceFile(tool.source, tool.file))}\n${note}`);
  }
  const nonFinite = nonFiniteNumber(tool, result.value ?? null);
  if (nonFinite !== null) return errorResult(`${result.output}${result.output === "" || result.output.endsWith("\n") ? "" : "\n"}${nonFinite}\n`);
  const text = entryResultText({ output: result.output, value: result.value }) + note;
  const content: CallToolResult["content"] = [{ type: "text", text }];
  // Without an agent the value is a prompt, not of the declared type: no structuredContent (server.ts lists no outputSchema then).
  if (!tool.output || (answerer === null && tool.thinks)) return { content };
  const value = result.value ?? null;
  return { content, structuredContent: (tool.output.wrapped ? { value } : value) as Record<string, unknown> };
}

/**
 * The call's arguments in parameter order. An unknown name is an error here; a parameter left
 * out is null (a trailing one is left off, so that the entry's own check says it is missing).
 */
function argumentList(tool: McpTool, given: Record<string, unknown>): JsonValue[] | string {
  const unknown = unknownParameters(tool, given);
  if (unknown !== null) return unknown;
  const args = tool.params.map((p) => (Object.prototype.hasOwnProperty.call(given, p) ? (given[p] as JsonValue) : undefined));
  while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
  return args.map((a) => (a === undefined ? null : a));
}

/** The tool error for arguments named as no parameter of `tool` (`__proto__` included: JSON.parse keeps it as an own key), or null. */
export function unknownParameters(tool: McpTool, given: Record<string, unknown>): string | null {
  const unknown = Object.keys(given).filter((k) => !tool.params.includes(k));
  return unknown.length > 0 ? `${tool.name} has no parameter ${unknown.map((k) => `'${k}'`).join(", ")}: ${tool.signature}` : null;
}

/**
 * A declared `number` result that arrived as null: the entry returned Infinity, -Infinity or NaN
 * (`1e308 + 1e308`), which JSON cannot carry, so the value became null; the client would reject
 * it against the output schema. A tool error says so instead.
 */
function nonFiniteNumber(tool: McpTool, value: unknown): string | null {
  if (!tool.output || value !== null) return null;
  const schema = tool.output.wrapped ? (tool.output.schema.properties as Record<string, { type?: unknown }> | undefined)?.value : tool.output.schema;
  const type = schema?.type;
  return type === "number" || type === "integer" ? `${tool.name} returned a number that is not finite (Infinity, -Infinity or NaN): JSON cannot carry it` : null;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
