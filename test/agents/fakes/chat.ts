/**
 * A fake OpenAI-compatible Chat Completions API (what OpenCode, Qwen Code and GitHub Copilot
 * CLI talk to when pointed at a local model server such as Ollama, vLLM or llama.cpp's
 * `llama-server`), driven by rules (server.ts).
 *
 *   POST /v1/chat/completions (also /chat/completions)
 *        `stream: true`: SSE `chat.completion.chunk`s: a role chunk, the text in two deltas,
 *        each tool call as `delta.tool_calls[{index, id, type, function: {name, arguments}}]`
 *        (arguments in two pieces, as servers stream them), a chunk with `finish_reason`
 *        (`stop` or `tool_calls`), a usage chunk (`choices: []`) when
 *        `stream_options.include_usage` is set, then `data: [DONE]`;
 *        otherwise one `chat.completion` with `message.content`, `message.tool_calls`,
 *        `finish_reason` and `usage`
 *   GET  /v1/models (also /models)   the model list (one model: the one asked for)
 *   anything else                    404 (logged)
 *
 * The latest content is the trailing `role: "tool"` messages (after a tool call) or else the
 * last user message. Our `do` tool is the offered function whose name ends in `do` after a
 * separator and names our server (`patchwork_do`, `mcp__patchwork__do`, `patchwork-do`…).
 * A request offering no tools is a side request (a session title, a summary…).
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { startFakeServer, textOf, type Decision, type FakeApi, type ModelRequest, type Rule } from "./server.js";

const id = (prefix: string) => `${prefix}-${randomBytes(10).toString("hex")}`;

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
}
interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: ChatMessage[];
  tools?: { type?: string; function?: { name?: string } }[];
}

/** How agents word a tool call that failed or did not run, in the tool message they send back. */
const TOOL_ERROR = /^error|failed|denied|rejected|cancelled|canceled|not executed|isError/i;

/** Our server's `do` tool, however an agent qualifies it. */
export const DO_TOOL = /(^|[^a-z0-9])patchwork[^a-z0-9]+do$/i;

export function chatRequest(body: ChatBody): ModelRequest {
  const messages = body.messages ?? [];
  let first = messages.length;
  while (first > 0 && messages[first - 1].role === "tool") first--;
  const outputs = messages.slice(first).map((m) => textOf(m.content));
  const lastUser = messages.findLast((m) => m.role === "user");
  const tools = (body.tools ?? []).map((t) => t.function?.name ?? "").filter(Boolean);
  return {
    latest: outputs.length > 0 ? outputs.join("\n") : textOf(lastUser?.content),
    afterTool: outputs.length > 0,
    toolError: outputs.some((text) => TOOL_ERROR.test(text.trim())),
    tools,
    doTool: tools.find((n) => DO_TOOL.test(n)),
    side: tools.length === 0,
  };
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

interface Reply {
  content: string | null;
  toolCalls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  finish: "stop" | "tool_calls";
}

function replyOf(decision: Decision): Reply {
  if (decision.kind === "text") return { content: decision.text, toolCalls: [], finish: "stop" };
  const call = { id: id("call"), type: "function" as const, function: { name: decision.name, arguments: JSON.stringify(decision.input) } };
  return { content: decision.preamble ?? null, toolCalls: [call], finish: "tool_calls" };
}

function replyStreaming(res: ServerResponse, body: ChatBody, reply: Reply): void {
  const base = { id: id("chatcmpl"), object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model ?? "fake-model" };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (data: Record<string, unknown>) => res.write(`data: ${JSON.stringify({ ...base, ...data })}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null = null) => send({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
  delta({ role: "assistant", content: "" });
  if (reply.content) {
    // Two deltas: an agent must join them.
    const cut = Math.ceil(reply.content.length / 2);
    delta({ content: reply.content.slice(0, cut) });
    delta({ content: reply.content.slice(cut) });
  }
  reply.toolCalls.forEach((call, index) => {
    const args = call.function.arguments;
    const cut = Math.ceil(args.length / 2);
    delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: args.slice(0, cut) } }] });
    delta({ tool_calls: [{ index, function: { arguments: args.slice(cut) } }] });
  });
  delta({}, reply.finish);
  if (body.stream_options?.include_usage) send({ choices: [], usage: USAGE });
  res.write("data: [DONE]\n\n");
  res.end();
}

function replyWhole(res: ServerResponse, body: ChatBody, reply: Reply): void {
  const message = { role: "assistant", content: reply.content, ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}) };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: id("chatcmpl"),
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? "fake-model",
      choices: [{ index: 0, message, finish_reason: reply.finish }],
      usage: USAGE,
    }),
  );
}

/** The model the fake lists at /v1/models (agents that check the model exists find it). */
export const CHAT_MODEL = "fake-model";

/** Starts the fake on a random port of 127.0.0.1; the OpenAI-compatible base URL is `${url}/v1`. */
export function startFakeChat(rules: Rule[]): Promise<FakeApi> {
  return startFakeServer({
    rules,
    route(entry, res, book, later, failed) {
      const path = entry.path.replace(/^\/v1(?=\/)/, "");
      if (entry.method === "GET" && path === "/models") {
        res.writeHead(200, { "content-type": "application/json" });
        const model = { id: CHAT_MODEL, object: "model", created: 0, owned_by: "fake" };
        res.end(JSON.stringify({ object: "list", data: [model] }));
        return true;
      }
      if (entry.method !== "POST" || path !== "/chat/completions" || !entry.body || typeof entry.body !== "object") return false;
      const body = entry.body as ChatBody;
      entry.model = chatRequest(body);
      if (failed(entry, res)) return true;
      entry.decision = book.decide(entry.model);
      const reply = replyOf(entry.decision);
      later(entry.decision.delayMs, () => (body.stream ? replyStreaming(res, body, reply) : replyWhole(res, body, reply)));
      return true;
    },
    notFound: (e) => ({ error: { message: `fake API: no ${e.method} ${e.path}`, type: "not_found" } }),
    errorBody: (status) => ({ error: { message: status === 429 ? "Rate limit reached" : "The server is overloaded", type: status === 429 ? "rate_limit_error" : "server_error", code: null } }),
  });
}
