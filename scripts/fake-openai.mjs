#!/usr/bin/env node
/**
 * A fake OpenAI Responses API (and Chat Completions) on 127.0.0.1 for trying Codex's ACP
 * adapter against Patchwork.
 *
 *   POST /v1/responses          streaming SSE (and JSON when stream is false)
 *   POST /v1/chat/completions   streaming SSE (and JSON)
 *   GET  /v1/models             a one-model list
 *   anything else               404 (logged)
 *
 * When the request offers a tool whose name ends with `__do` (or is `do`) and no output for a
 * call of it is in the input yet, answer with a function call `{"number": 0}`; once its output
 * is there, answer with the final text (default "RECEIPT"). Anything else gets "OK".
 * Codex offers MCP tools in a namespace (`{type: "namespace", name: "mcp__patchwork", tools:
 * [{type: "function", name: "do"}]}`); a call of such a tool carries `namespace` and `name`.
 *
 * Library:  import { startFakeOpenAI } from "./fake-openai.mjs";
 * Command:  node scripts/fake-openai.mjs [--port N] [--log FILE] [--final TEXT]
 */
import { serveFromCommandLine, startFakeServer } from "./lib/fake-server.mjs";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

const id = (p) => `${p}_${randomBytes(10).toString("hex")}`;

function toolNames(body) {
  const names = [];
  for (const t of body.tools ?? []) {
    if (t.type === "function" && t.name) names.push(t.name);
    else if (t.type === "function" && t.function?.name) names.push(t.function.name);
    else if (t.type === "namespace" && Array.isArray(t.tools)) for (const s of t.tools) names.push(`${t.name}__${s.name}`);
    else if (t.name) names.push(t.name);
  }
  return names;
}

export function decideResponses(body, finalText) {
  const names = toolNames(body);
  const doName = names.find((n) => n.endsWith("__do") || n === "do");
  if (!doName) return { kind: "text", text: "OK", why: `no do tool (tools: ${names.join(",")})` };
  const input = Array.isArray(body.input) ? body.input : [];
  const outputs = input.filter((i) => i.type === "function_call_output");
  const messages = body.messages ?? [];
  const chatOutputs = messages.filter((m) => m.role === "tool");
  const all = [...outputs.map((o) => (typeof o.output === "string" ? o.output : JSON.stringify(o.output))), ...chatOutputs.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))];
  if (all.length === 0) return { kind: "call", name: doName, args: { number: 0 }, why: `calling ${doName}` };
  return { kind: "text", text: finalText, why: `tool output seen: ${JSON.stringify(all[all.length - 1])}`, toolResult: all[all.length - 1] };
}

function sse(res, data, event) {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
}

function responses(res, body, reply) {
  const respId = id("resp");
  const model = body.model ?? "gpt-fake";
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  let item;
  if (reply.kind === "call") {
    // Codex offers MCP tools in a namespace ({type: "namespace", name: "mcp__patchwork", tools: [{name: "do"}]}):
    // a call names the tool and its namespace separately.
    const cut = reply.name.lastIndexOf("__");
    const namespaced = (body.tools ?? []).some((t) => t.type === "namespace" && t.name === reply.name.slice(0, cut));
    item = namespaced
      ? { type: "function_call", id: id("fc"), call_id: id("call"), namespace: reply.name.slice(0, cut), name: reply.name.slice(cut + 2), arguments: JSON.stringify(reply.args), status: "completed" }
      : { type: "function_call", id: id("fc"), call_id: id("call"), name: reply.name, arguments: JSON.stringify(reply.args), status: "completed" };
  } else {
    item = { type: "message", id: id("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text: reply.text, annotations: [] }] };
  }
  const base = { id: respId, object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "in_progress", output: [] };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...base, status: "completed", output: [item], usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let seq = 0;
  const ev = (type, extra) => sse(res, { type, sequence_number: seq++, ...extra }, type);
  ev("response.created", { response: base });
  ev("response.in_progress", { response: base });
  if (item.type === "function_call") {
    ev("response.output_item.added", { output_index: 0, item: { ...item, arguments: "", status: "in_progress" } });
    ev("response.function_call_arguments.delta", { output_index: 0, item_id: item.id, delta: item.arguments });
    ev("response.function_call_arguments.done", { output_index: 0, item_id: item.id, arguments: item.arguments });
    ev("response.output_item.done", { output_index: 0, item });
  } else {
    ev("response.output_item.added", { output_index: 0, item: { ...item, content: [], status: "in_progress" } });
    ev("response.content_part.added", { output_index: 0, item_id: item.id, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    ev("response.output_text.delta", { output_index: 0, item_id: item.id, content_index: 0, delta: reply.text });
    ev("response.output_text.done", { output_index: 0, item_id: item.id, content_index: 0, text: reply.text });
    ev("response.content_part.done", { output_index: 0, item_id: item.id, content_index: 0, part: item.content[0] });
    ev("response.output_item.done", { output_index: 0, item });
  }
  ev("response.completed", { response: { ...base, status: "completed", output: [item], usage } });
  res.end();
}

function chat(res, body, reply) {
  const cid = id("chatcmpl");
  const model = body.model ?? "gpt-fake";
  const created = Math.floor(Date.now() / 1000);
  const message =
    reply.kind === "call"
      ? { role: "assistant", content: null, tool_calls: [{ id: id("call"), type: "function", function: { name: reply.name, arguments: JSON.stringify(reply.args) } }] }
      : { role: "assistant", content: reply.text };
  const finish = reply.kind === "call" ? "tool_calls" : "stop";
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: cid, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta, finish_reason = null) => sse(res, { id: cid, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }] });
  if (reply.kind === "call") {
    const call = message.tool_calls[0];
    chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] });
  } else {
    chunk({ role: "assistant", content: "" });
    chunk({ content: reply.text });
  }
  chunk({}, finish);
  res.write("data: [DONE]\n\n");
  res.end();
}

export async function startFakeOpenAI(options = {}) {
  const finalText = options.finalText ?? "RECEIPT";
  return startFakeServer({
    ...options,
    route(entry, res) {
      const { method, path, body } = entry;
      const isJson = body && typeof body === "object";
      if (method === "POST" && path.endsWith("/responses") && isJson) {
        entry.decision = decideResponses(body, finalText);
        entry.status = 200;
        responses(res, body, entry.decision);
        return true;
      }
      if (method === "POST" && path.endsWith("/chat/completions") && isJson) {
        entry.decision = decideResponses(body, finalText);
        entry.status = 200;
        chat(res, body, entry.decision);
        return true;
      }
      if (method === "GET" && path.endsWith("/models")) {
        entry.status = 200;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "gpt-fake", object: "model", created: 0, owned_by: "fake" }], models: [] }));
        return true;
      }
      return false;
    },
    notFound: (e) => ({ error: { message: `fake server: no ${e.method} ${e.path}`, type: "not_found" } }),
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await serveFromCommandLine(startFakeOpenAI);
