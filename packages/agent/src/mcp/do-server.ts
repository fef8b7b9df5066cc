/**
 * The MCP server definition with its one tool, `do`. One definition, served over every
 * transport; each session gets its own declaration (token or server id) bound to the
 * think that offered it, so a `do` call can only reach that think.
 */
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import * as z from "zod";

export const MCP_SERVER_NAME = "patchwork";

export const DO_TOOL_DESCRIPTION = [
  "Run one of the numbered `do { … }` code blocks shown in the prompt.",
  "The prompt is part of a Patchwork program; each block is a piece of that program, numbered 0, 1, 2… in order.",
  "Call `do` with the block's number to run it now, as often as the task requires.",
  "Returns everything the block prints (or its value when it prints nothing); an error result says what went wrong and which numbers are valid.",
].join(" ");

export type DoCall = (index: number) => Promise<CallToolResult>;

const doShape = z.object({
  number: z.number().int().min(0).describe("The number of the do block to run (0, 1, 2…)."),
});

/** The JSON Schema `tools/list` shows for `do`, made once per process (see `doInputSchema`). */
const listedSchema = new Map<string, Record<string, unknown>>();

/**
 * The `do` tool's input: zod checks each call; the JSON Schema that `tools/list` shows is
 * converted from it once per process and target (zod's conversion costs ≈ 10–30 ms of CPU),
 * not once per session: every session lists the tools of a server instance of its own.
 */
export const doInputSchema: StandardSchemaWithJSON<{ number: number }, { number: number }> = {
  "~standard": {
    version: 1,
    vendor: "patchwork",
    validate: (value) => doShape["~standard"].validate(value),
    jsonSchema: {
      input: (options) => listed("input", options, () => doShape["~standard"].jsonSchema.input(options)),
      output: (options) => listed("output", options, () => doShape["~standard"].jsonSchema.output(options)),
    },
  },
};

function listed(io: string, options: { target: string }, convert: () => Record<string, unknown>): Record<string, unknown> {
  const key = `${io} ${options.target}`;
  let schema = listedSchema.get(key);
  if (!schema) listedSchema.set(key, (schema = convert()));
  return schema;
}

/** A fresh server instance (the MCP SDK wants one per HTTP request or stdio connection). */
export function createDoServer(call: DoCall): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: "0.1.0" });
  server.registerTool(
    "do",
    { title: "Run a numbered do block", description: DO_TOOL_DESCRIPTION, inputSchema: doInputSchema },
    async ({ number }) => call(number),
  );
  return server;
}

export function toolText(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: "text", text }], isError: true } : { content: [{ type: "text", text }] };
}
