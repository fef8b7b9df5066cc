/**
 * Thinks answered by the MCP client's own model (`sampling/createMessage`): an `AsyncAgent`, so
 * a served skill runs on the one runtime whichever answers its thinks. A think with `do` blocks
 * offers the model a `do` tool when the client's sampling supports tools (its `sampling.tools`
 * capability): each `tool_use` of it runs the block and goes back as a `tool_result`, until the
 * model answers with text. Without tool support such a think fails with PW4020, which says to
 * start `patchwork mcp` with `--agent`.
 */
import type { CreateMessageRequest, CreateMessageResult, CreateMessageResultWithTools, SamplingMessage } from "@modelcontextprotocol/server";
import { AgentCodes, DO_TOOL_DESCRIPTION, type AsyncAgent, type AsyncRunChild, type AsyncThinkReply, type ThinkContext } from "@patchwork/agent";
import { AgentError, type ThinkRequest } from "@patchwork/interpreter";

export type Sample = (
  params: CreateMessageRequest["params"],
  options: { signal: AbortSignal },
) => Promise<CreateMessageResult | CreateMessageResultWithTools>;

export interface SamplingAgentOptions {
  sample: Sample;
  /** The client declared `sampling.tools`: thinks with `do` blocks can run them. */
  tools: boolean;
  /** `maxTokens` of each request (default 4096). */
  maxTokens?: number;
}

/** Most sampling requests of one think (model turns that called `do`, then the answer). */
const MAX_ROUNDS = 32;

const DO_TOOL = {
  name: "do",
  description: DO_TOOL_DESCRIPTION,
  inputSchema: {
    type: "object" as const,
    properties: { number: { type: "integer", minimum: 0, description: "The number of the do block to run (0, 1, 2…)." } },
    required: ["number"],
  },
};

type Block = SamplingMessage["content"] extends infer C ? (C extends (infer B)[] ? B : C) : never;

export class SamplingAgent implements AsyncAgent {
  constructor(private readonly options: SamplingAgentOptions) {}

  async think(request: ThinkRequest, runChild: AsyncRunChild, signal: AbortSignal, context: ThinkContext): Promise<AsyncThinkReply> {
    if (request.childCount > 0 && !this.options.tools) {
      throw new AgentError(
        AgentCodes.samplingWithoutTools,
        "this think has do blocks, and the MCP client's sampling cannot run tools (no sampling.tools capability): start patchwork mcp with --agent <agent> to answer it (docs/mcp.md)",
      );
    }
    const messages: SamplingMessage[] = [{ role: "user", content: { type: "text", text: request.prompt } }];
    return this.converse(messages, request.childCount > 0, runChild, signal, context);
  }

  private async converse(
    messages: SamplingMessage[],
    withTools: boolean,
    runChild: AsyncRunChild,
    signal: AbortSignal,
    context: ThinkContext,
  ): Promise<AsyncThinkReply> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const result = await this.sample(messages, withTools, signal);
      const blocks = (Array.isArray(result.content) ? result.content : [result.content]) as Block[];
      const text = blocks.map((b) => (b.type === "text" ? b.text : "")).join("");
      if (text !== "") context.emit({ type: "agent-text", thinkId: context.thinkId, text, messageId: null });
      const uses = blocks.filter((b): b is Extract<Block, { type: "tool_use" }> => b.type === "tool_use");
      messages.push({ role: "assistant", content: blocks });
      if (uses.length === 0) {
        return {
          text,
          followUp: (message, nextRunChild, nextSignal) => {
            messages.push({ role: "user", content: { type: "text", text: message } });
            return this.converse(messages, withTools, nextRunChild, nextSignal, context);
          },
        };
      }
      const results: Block[] = [];
      for (const use of uses) results.push(await this.runTool(use, runChild, context));
      messages.push({ role: "user", content: results });
    }
    throw new AgentError(AgentCodes.maxTurnRequests, `the client's model called do more than ${MAX_ROUNDS} times without answering`);
  }

  private async sample(messages: SamplingMessage[], withTools: boolean, signal: AbortSignal) {
    try {
      return await this.options.sample(
        {
          messages,
          maxTokens: this.options.maxTokens ?? 4096,
          ...(withTools ? { tools: [DO_TOOL], toolChoice: { mode: "auto" as const } } : {}),
        },
        { signal },
      );
    } catch (error) {
      if (signal.aborted) throw new AgentError(AgentCodes.cancelled, "the think was cancelled");
      throw new AgentError(AgentCodes.requestFailed, `the MCP client's sampling failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async runTool(use: Extract<Block, { type: "tool_use" }>, runChild: AsyncRunChild, context: ThinkContext): Promise<Block> {
    const n = (use.input as { number?: unknown }).number;
    const outcome =
      use.name !== "do"
        ? { ok: false as const, error: `there is no tool '${use.name}': the only tool is do` }
        : typeof n === "number" && Number.isInteger(n) && n >= 0
          ? await runChild(n)
          : { ok: false as const, error: "do takes {number: <the block's number>}" };
    context.emit({ type: "tool-call", thinkId: context.thinkId, toolCallId: use.id, title: `do ${String(n)}`, status: outcome.ok ? "completed" : "failed", ours: true });
    const content = [{ type: "text" as const, text: outcome.ok ? outcome.text : outcome.error }];
    return { type: "tool_result", toolUseId: use.id, content, ...(outcome.ok ? {} : { isError: true }) };
  }
}
