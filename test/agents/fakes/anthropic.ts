/**
 * A fake Anthropic Messages API (what Claude Code talks to), driven by rules (server.ts).
 *
 *   POST /v1/messages               streaming (SSE) and non-streaming JSON
 *   POST /v1/messages/count_tokens  {"input_tokens": 42}
 *   anything else                   404 (logged, so a test can see what the agent asked for)
 *
 * Claude Code offers MCP tools as `mcp__<server>__<tool>`: our `do` tool is the one whose
 * name ends with `__do`. The latest content is the last user message: its text blocks and
 * the text of its tool_result blocks. A request that offers no tools is a side request
 * (Claude Code titles each new session with one).
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { startFakeServer, textOf, type Decision, type FakeApi, type ModelRequest, type Rule } from "./server.js";

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  is_error?: boolean;
}
interface MessagesBody {
  model?: string;
  stream?: boolean;
  tools?: { name?: string }[];
  messages?: { role: string; content: string | Block[] }[];
}

export function anthropicRequest(body: MessagesBody): ModelRequest {
  const tools = (body.tools ?? []).map((t) => t.name ?? "").filter(Boolean);
  // Claude Code may append a `system` message after the user's: the latest content is the user's.
  const last = body.messages?.findLast((m) => m.role === "user");
  const blocks: Block[] = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : last?.content ?? [];
  const results = blocks.filter((b) => b.type === "tool_result");
  const latest = blocks
    .map((b) => (b.type === "text" ? b.text ?? "" : b.type === "tool_result" ? textOf(b.content) : ""))
    .filter(Boolean)
    .join("\n");
  return {
    latest,
    afterTool: results.length > 0,
    toolError: results.some((b) => b.is_error === true),
    tools,
    doTool: tools.find((n) => n.endsWith("__do")),
    side: tools.length === 0,
  };
}

/** The content blocks of a reply. */
function contentOf(decision: Decision): Record<string, unknown>[] {
  if (decision.kind === "text") return [{ type: "text", text: decision.text }];
  const call = { type: "tool_use", id: id("toolu"), name: decision.name, input: decision.input };
  return decision.preamble ? [{ type: "text", text: decision.preamble }, call] : [call];
}

function message(model: string, content: Record<string, unknown>[], stopReason: string | null) {
  return {
    id: id("msg"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function replyStreaming(res: ServerResponse, model: string, decision: Decision): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": id("req") });
  const send = (event: string, data: Record<string, unknown>) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send("message_start", { message: message(model, [], null) });
  contentOf(decision).forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      send("content_block_start", { index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      const cut = Math.max(1, Math.floor(json.length / 2));
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } });
      }
    }
    send("content_block_stop", { index });
  });
  const stop = decision.kind === "tool" ? "tool_use" : "end_turn";
  send("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 6 } });
  send("message_stop", {});
  res.end();
}

/** Starts the fake on a random port of 127.0.0.1. */
export function startFakeAnthropic(rules: Rule[]): Promise<FakeApi> {
  return startFakeServer({
    rules,
    route(entry, res, book, later, failed) {
      if (entry.method !== "POST" || !entry.body || typeof entry.body !== "object") return false;
      if (entry.path === "/v1/messages/count_tokens") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: 42 }));
        return true;
      }
      if (entry.path !== "/v1/messages") return false;
      const body = entry.body as MessagesBody;
      entry.model = anthropicRequest(body);
      if (failed(entry, res)) return true;
      entry.decision = book.decide(entry.model);
      const decision = entry.decision;
      const model = body.model ?? "claude-fake";
      later(decision.delayMs, () => {
        if (body.stream) return replyStreaming(res, model, decision);
        res.writeHead(200, { "content-type": "application/json", "request-id": id("req") });
        res.end(JSON.stringify(message(model, contentOf(decision), decision.kind === "tool" ? "tool_use" : "end_turn")));
      });
      return true;
    },
    notFound: (e) => ({ type: "error", error: { type: "not_found_error", message: `fake API: no ${e.method} ${e.path}` } }),
    // As the Messages API words them: 529 overloaded_error, 429 rate_limit_error, 5xx api_error.
    errorBody: (status) => ({
      type: "error",
      error: status === 529 ? { type: "overloaded_error", message: "Overloaded" } : status === 429 ? { type: "rate_limit_error", message: "Rate limited" } : { type: "api_error", message: "Internal server error" },
    }),
  });
}
