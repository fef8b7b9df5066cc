/**
 * A fake OpenAI Responses API (what Codex 0.166's `codex app-server` talks to, driven by
 * `@agentclientprotocol/codex-acp`), driven by rules (server.ts).
 *
 *   POST /v1/responses   streaming SSE: response.created, response.in_progress, per output item
 *                        output_item.added, its text or argument deltas, output_item.done, then
 *                        response.completed with usage
 *   GET  /v1/models      an empty list (Codex then uses its bundled model list)
 *   anything else        404 (logged)
 *
 * Codex offers MCP tools in a namespace (`{type: "namespace", name: "mcp__patchwork", tools:
 * [{name: "do"}]}`): our tool is `mcp__patchwork__do`, and a call of it carries `namespace:
 * "mcp__patchwork"` and `name: "do"` separately. Codex then asks the client for approval
 * (`session/request_permission` naming only the tool call's id) and sends the result back as a
 * `function_call_output` whose `output` is a list of `input_text` parts: "Wall time: … Output:",
 * then the tool's text. A denied or failed call's output is an error text instead.
 *
 * The latest content is the trailing function_call_outputs (after a tool call) or else the
 * last user message. A request offering no tools is a side request (Codex titles a new thread
 * with one, on a small model).
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { startFakeServer, textOf, type Decision, type FakeApi, type ModelRequest, type Rule } from "./server.js";

const id = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;

interface InputItem {
  type: string;
  role?: string;
  content?: unknown;
  output?: unknown;
}
interface ResponsesBody {
  model?: string;
  input?: InputItem[] | string;
  tools?: { type: string; name?: string; tools?: { name?: string }[] }[];
}

/** Codex's wording for a tool call that did not run or failed (MCP isError, denied approval, unknown tool). */
const TOOL_ERROR = /user cancelled MCP tool call|^Error|failed|not executed|rejected|denied/i;

/** A tool result as the model sees it: Codex's "Wall time: … Output:" header dropped. */
function outputText(output: unknown): string {
  const text = typeof output === "string" ? output : textOf(output);
  return text.replace(/^Wall time: [^\n]*\n(Output:\n?)?/, "");
}

function toolsOf(body: ResponsesBody): string[] {
  const names: string[] = [];
  for (const t of body.tools ?? []) {
    if (t.type === "namespace") for (const s of t.tools ?? []) names.push(`${t.name}__${s.name}`);
    else names.push(t.name ?? t.type);
  }
  return names;
}

export function openaiRequest(body: ResponsesBody): ModelRequest {
  const input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : body.input ?? [];
  let first = input.length;
  while (first > 0 && input[first - 1].type === "function_call_output") first--;
  const outputs = input.slice(first).map((item) => outputText(item.output));
  const lastUser = input.findLast((item) => item.type === "message" && item.role === "user");
  const tools = toolsOf(body);
  return {
    latest: outputs.length > 0 ? outputs.join("\n") : textOf(lastUser?.content),
    afterTool: outputs.length > 0,
    toolError: outputs.some((text) => TOOL_ERROR.test(text)),
    tools,
    doTool: tools.find((n) => n === "mcp__patchwork__do"),
    side: tools.length === 0,
  };
}

/** The response's output items for a decision: a message, or a call (after a preamble message). */
function itemsOf(decision: Decision, body: ResponsesBody): Record<string, unknown>[] {
  const message = (text: string) => ({
    type: "message",
    id: id("msg"),
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  });
  if (decision.kind === "text") return [message(decision.text)];
  const cut = decision.name.lastIndexOf("__");
  const namespace = cut > 0 ? decision.name.slice(0, cut) : "";
  const namespaced = (body.tools ?? []).some((t) => t.type === "namespace" && t.name === namespace);
  const call = {
    type: "function_call",
    id: id("fc"),
    call_id: id("call"),
    ...(namespaced ? { namespace, name: decision.name.slice(cut + 2) } : { name: decision.name }),
    arguments: JSON.stringify(decision.input),
    status: "completed",
  };
  return decision.preamble ? [message(decision.preamble), call] : [call];
}

const USAGE = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};

function replyStreaming(res: ServerResponse, model: string, items: Record<string, unknown>[]): void {
  const base = { id: id("resp"), object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "in_progress", output: [] };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let sequence_number = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence_number++, ...data })}\n\n`);
  send("response.created", { response: base });
  send("response.in_progress", { response: base });
  items.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "function_call") {
      send("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
      send("response.function_call_arguments.delta", { output_index, item_id, delta: item.arguments });
      send("response.function_call_arguments.done", { output_index, item_id, arguments: item.arguments });
    } else {
      const part = (item.content as { text: string }[])[0];
      send("response.output_item.added", { output_index, item: { ...item, content: [], status: "in_progress" } });
      send("response.content_part.added", { output_index, item_id, content_index: 0, part: { ...part, text: "" } });
      send("response.output_text.delta", { output_index, item_id, content_index: 0, delta: part.text });
      send("response.output_text.done", { output_index, item_id, content_index: 0, text: part.text });
      send("response.content_part.done", { output_index, item_id, content_index: 0, part });
    }
    send("response.output_item.done", { output_index, item });
  });
  send("response.completed", { response: { ...base, status: "completed", output: items, usage: USAGE } });
  res.end();
}

/** Starts the fake on a random port of 127.0.0.1; Codex's provider `base_url` is `${url}/v1`. */
export function startFakeOpenAI(rules: Rule[]): Promise<FakeApi> {
  return startFakeServer({
    rules,
    route(entry, res, book, later, failed) {
      if (entry.method === "GET" && entry.path === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [], models: [] }));
        return true;
      }
      if (entry.method !== "POST" || entry.path !== "/v1/responses" || !entry.body || typeof entry.body !== "object") return false;
      const body = entry.body as ResponsesBody;
      entry.model = openaiRequest(body);
      if (failed(entry, res)) return true;
      entry.decision = book.decide(entry.model);
      const decision = entry.decision;
      const items = itemsOf(decision, body);
      later(decision.delayMs, () => replyStreaming(res, body.model ?? "gpt-fake", items));
      return true;
    },
    notFound: (e) => ({ error: { message: `fake API: no ${e.method} ${e.path}`, type: "not_found" } }),
    errorBody: (status) => ({ error: { message: status === 429 ? "Rate limit reached" : "The server is overloaded", type: status === 429 ? "rate_limit_exceeded" : "server_error", code: null } }),
  });
}
