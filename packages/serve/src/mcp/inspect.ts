/**
 * `patchwork mcp`'s own check of a message before the SDK reads it (stdio and HTTP): a
 * `tools/call` whose arguments name `__proto__`. The SDK's parse of the arguments drops that key
 * (or makes it the object's prototype), so the call's own check of unknown parameters never saw
 * it; here, where the message is still as the client wrote it, it is answered as any unknown
 * parameter is: a tool error naming it.
 */
import { unknownParameters } from "./call.js";
import type { McpTool } from "./catalog.js";

export function inspectCall(message: Record<string, unknown>, tools: () => McpTool[]): object | null {
  if (message.method !== "tools/call" || !("id" in message)) return null;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  const args = params?.arguments;
  if (args === null || typeof args !== "object" || Array.isArray(args) || !Object.prototype.hasOwnProperty.call(args, "__proto__")) return null;
  const tool = tools().find((t) => t.name === params!.name);
  const text = tool ? unknownParameters(tool, args as Record<string, unknown>) : null;
  if (text === null) return null;
  return { jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }], isError: true } };
}
