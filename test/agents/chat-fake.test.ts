/**
 * The fake OpenAI-compatible Chat Completions API (fakes/chat.ts) as a client sees it, without
 * an agent: streamed chunks (text deltas, tool-call deltas, finish_reason, usage, [DONE]) and
 * the non-streamed answer, for the same rules.
 */
import { describe, expect, it } from "vitest";
import { CHAT_MODEL, startFakeChat } from "./fakes/chat.js";

const TOOLS = [{ type: "function", function: { name: "patchwork_do", parameters: { type: "object" } } }];

async function post(url: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe("the fake Chat Completions API", () => {
  it("streams a preamble and a do call as deltas, then finish_reason tool_calls, usage and [DONE]; a tool result gets the final text", async () => {
    const fake = await startFakeChat([
      { when: "Pick", afterTool: false, reply: { preamble: "Let me run it.", call: 0 } },
      { when: "block ran", afterTool: true, reply: { text: "DONE" } },
    ]);
    try {
      const messages = [{ role: "user", content: "Pick the block" }];
      const res = await post(fake.url, { model: CHAT_MODEL, stream: true, stream_options: { include_usage: true }, messages, tools: TOOLS });
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const events = (await res.text()).split("\n\n").filter(Boolean).map((e) => e.replace(/^data: /, ""));
      expect(events.at(-1)).toBe("[DONE]");
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: { delta: Record<string, unknown>; finish_reason: string | null }[]; usage?: unknown });
      const text = chunks.flatMap((c) => c.choices.map((ch) => (ch.delta.content as string | undefined) ?? "")).join("");
      expect(text).toBe("Let me run it.");
      const calls = chunks.flatMap((c) => c.choices.flatMap((ch) => (ch.delta.tool_calls as { id?: string; function: { name?: string; arguments: string } }[] | undefined) ?? []));
      expect(calls[0]!.function.name).toBe("patchwork_do");
      expect(calls.map((c) => c.function.arguments).join("")).toBe('{"number":0}');
      expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean)).toEqual(["tool_calls"]);
      expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });

      const after = [...messages, { role: "assistant", content: null, tool_calls: [{ id: calls[0]!.id, type: "function", function: { name: "patchwork_do", arguments: '{"number":0}' } }] }, { role: "tool", tool_call_id: calls[0]!.id, content: "block ran" }];
      const whole = (await (await post(fake.url, { model: CHAT_MODEL, messages: after, tools: TOOLS })).json()) as {
        choices: { message: { content: string }; finish_reason: string }[];
        usage: unknown;
      };
      expect(whole.choices[0]!.message.content).toBe("DONE");
      expect(whole.choices[0]!.finish_reason).toBe("stop");
      expect(whole.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
      expect(fake.rules.hits).toEqual([1, 1]);
      expect(fake.modelRequests().map((q) => q.model?.afterTool)).toEqual([false, true]);
    } finally {
      await fake.close();
    }
  });

  it("a do call not streamed: message.tool_calls with finish_reason tool_calls; the model list names the model", async () => {
    const fake = await startFakeChat([{ when: "Pick", reply: { call: 2 } }]);
    try {
      const whole = (await (await post(fake.url, { model: CHAT_MODEL, messages: [{ role: "user", content: "Pick" }], tools: TOOLS })).json()) as {
        choices: { message: { content: null; tool_calls: { function: { name: string; arguments: string } }[] }; finish_reason: string }[];
      };
      expect(whole.choices[0]!.message.tool_calls[0]!.function).toEqual({ name: "patchwork_do", arguments: '{"number":2}' });
      expect(whole.choices[0]!.finish_reason).toBe("tool_calls");
      const models = (await (await fetch(`${fake.url}/v1/models`)).json()) as { data: { id: string }[] };
      expect(models.data.map((m) => m.id)).toEqual([CHAT_MODEL]);
    } finally {
      await fake.close();
    }
  });
});
