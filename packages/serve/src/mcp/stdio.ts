/**
 * `patchwork mcp` over stdio: the SDK's transport reading stdin through the servers' checks
 * (guard/lines.ts), so that a line too large or too deep, or an invalid request, is answered
 * with a JSON-RPC error and the server keeps serving instead of exiting.
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "@patchwork/agent";
import { MAX_MESSAGE_BYTES } from "../guard/jsonrpc.js";
import { guardedLines } from "../guard/lines.js";

export function guardedStdio(logger: Logger | undefined, inspect: (message: Record<string, unknown>) => object | null): StdioServerTransport {
  const reply = (response: object) => void process.stdout.write(JSON.stringify(response) + "\n");
  const input = guardedLines(process.stdin, { reply, log: (message) => logger?.warn(message), inspect });
  // The SDK's own buffer (10 MiB by default) must hold any line the guard lets through.
  return new StdioServerTransport(input, process.stdout, { maxBufferSize: 2 * MAX_MESSAGE_BYTES });
}
