#!/usr/bin/env node
/**
 * A fake Anthropic Messages API on 127.0.0.1 for trying real ACP agents (Claude Code's ACP
 * adapter) against Patchwork without a network or a key.
 *
 *   POST /v1/messages               streaming (SSE) and non-streaming JSON
 *   POST /v1/messages/count_tokens  {"input_tokens": N}
 *   anything else                   404 (logged, so you can see what the agent asked for)
 *
 * Behaviour of /v1/messages: when the request offers a tool whose name ends with `__do`
 * (Claude Code names MCP tools `mcp__<server>__do`) and the conversation holds no
 * tool_result yet for a do call, it answers with one tool_use calling it with
 * `{"number": 0}`; once a tool_result is there it answers with the final text (default
 * "RECEIPT"), stop_reason end_turn. Any other request (title generation, a quota check…)
 * gets a short text reply.
 *
 * Every request is appended as one JSON line to the log file (body included).
 *
 * Library:  import { startFakeAnthropic } from "./fake-anthropic.mjs";
 *           const fake = await startFakeAnthropic({ logFile, finalText }); fake.url; await fake.close();
 * Command:  node scripts/fake-anthropic.mjs [--port N] [--log FILE] [--final TEXT]
 *           prints "listening on http://127.0.0.1:PORT" and serves until killed.
 */
import { serveFromCommandLine, startFakeServer } from "./lib/fake-server.mjs";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

const id = (prefix) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** Tool-use ids of the `do` calls that already got a tool_result in this conversation. */
function answeredDoCalls(messages, doToolName) {
  const doUseIds = new Set();
  const answered = [];
  for (const message of messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && block.name === doToolName) doUseIds.add(block.id);
      if (block.type === "tool_result" && doUseIds.has(block.tool_use_id)) answered.push(block);
    }
  }
  return answered;
}

function resultText(block) {
  if (typeof block.content === "string") return block.content;
  if (Array.isArray(block.content)) return block.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("");
  return "";
}

/** Decides the reply: { kind: "tool_use", name, input } or { kind: "text", text }, plus why. */
export function decide(body, finalText) {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const doTool = tools.find((t) => typeof t.name === "string" && t.name.endsWith("__do"));
  if (!doTool) return { kind: "text", text: "OK", why: "no __do tool offered" };
  const answered = answeredDoCalls(body.messages, doTool.name);
  if (answered.length === 0) return { kind: "tool_use", name: doTool.name, input: { number: 0 }, why: `calling ${doTool.name}` };
  const last = answered[answered.length - 1];
  return {
    kind: "text",
    text: finalText,
    why: `tool_result seen (${last.is_error ? "error" : "ok"}): ${JSON.stringify(resultText(last))}`,
    toolResult: resultText(last),
    toolResultIsError: !!last.is_error,
  };
}

function messageObject(model, content, stopReason) {
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

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function replyStreaming(res, model, reply) {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "request-id": id("req"),
  });
  const start = messageObject(model, [], null);
  start.usage.output_tokens = 1;
  sse(res, "message_start", { type: "message_start", message: start });
  if (reply.kind === "tool_use") {
    const toolUseId = id("toolu");
    sse(res, "content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: toolUseId, name: reply.name, input: {} },
    });
    sse(res, "ping", { type: "ping" });
    const json = JSON.stringify(reply.input);
    const cut = Math.max(1, Math.floor(json.length / 2));
    for (const part of [json.slice(0, cut), json.slice(cut)]) {
      sse(res, "content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: part } });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index: 0 });
    sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 20 } });
  } else {
    sse(res, "content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    sse(res, "ping", { type: "ping" });
    sse(res, "content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply.text } });
    sse(res, "content_block_stop", { type: "content_block_stop", index: 0 });
    sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 6 } });
  }
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

function replyJson(res, model, reply) {
  const content =
    reply.kind === "tool_use"
      ? [{ type: "tool_use", id: id("toolu"), name: reply.name, input: reply.input }]
      : [{ type: "text", text: reply.text }];
  const body = messageObject(model, content, reply.kind === "tool_use" ? "tool_use" : "end_turn");
  res.writeHead(200, { "content-type": "application/json", "request-id": id("req") });
  res.end(JSON.stringify(body));
}

/**
 * Starts the server. Options: port (0 = random), logFile (JSON lines), finalText,
 * onRequest(entry) called for every request with {method, path, decision?}.
 */
export async function startFakeAnthropic(options = {}) {
  const finalText = options.finalText ?? "RECEIPT";
  return startFakeServer({
    ...options,
    route(entry, res) {
      const { method, path, body } = entry;
      if (method === "POST" && path === "/v1/messages/count_tokens") {
        entry.status = 200;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: 42 }));
        return true;
      }
      if (method === "POST" && path === "/v1/messages" && body && typeof body === "object") {
        const reply = decide(body, finalText);
        entry.status = 200;
        entry.decision = reply;
        const model = body.model ?? "claude-fake";
        if (body.stream) replyStreaming(res, model, reply);
        else replyJson(res, model, reply);
        return true;
      }
      return false;
    },
    notFound: (e) => ({ type: "error", error: { type: "not_found_error", message: `fake server: no ${e.method} ${e.path}` } }),
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await serveFromCommandLine(startFakeAnthropic);
