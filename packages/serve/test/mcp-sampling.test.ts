// `patchwork mcp` with no agent, from a client that offers sampling: the skill's thinks go to the
// client's own model (`sampling/createMessage`), do blocks through sampling's tool use when the
// client supports it, and a clear PW4020 tool error when it does not.
import { afterEach, describe, expect, it } from "vitest";
import { connect, folderWith, textOf, type Connected } from "./mcp-helpers.js";

const SKILLS = `export default trait Sampler: Agent {
  # Asks the model about a topic.
  @skill ask_about
  fun ask_about(topic: string) {
    var a = think { Say something about \${topic}. }
    return a
  }

  # Lets the model run a block.
  @skill with_block
  fun with_block() {
    var r = think {
      Run the block, then say what it printed.
      do {
        print("the block ran")
      }
    }
    return r
  }
}
`;

type Message = { role: string; content: unknown };
const open: Connected[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => undefined);
});

async function start(capabilities: Record<string, unknown>, answer: (messages: Message[]) => unknown): Promise<{ c: Connected; seen: Message[][] }> {
  const dir = folderWith({ "sampler.pw": SKILLS });
  const seen: Message[][] = [];
  const c = await connect(["sampler.pw"], dir, {
    capabilities,
    env: { PATCHWORK_AGENT: "" },
    setup: (client) =>
      client.setRequestHandler("sampling/createMessage", async (request) => {
        const messages = structuredClone(request.params.messages) as Message[];
        seen.push(messages);
        return answer(messages) as never;
      }),
  });
  open.push(c);
  return { c, seen };
}

describe("thinks through the client's sampling", () => {
  it("a think is answered by the client's model", async () => {
    const { c, seen } = await start({ sampling: {} }, () => ({ model: "test-model", role: "assistant", content: { type: "text", text: "Tea is calm." } }));
    const result = await c.client.callTool({ name: "ask_about", arguments: { topic: "tea" } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("Tea is calm.\n");
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(seen[0])).toContain("Say something about tea.");
  });

  it("do blocks run through sampling's tool use when the client supports tools", async () => {
    const { c, seen } = await start({ sampling: { tools: {} } }, (messages) => {
      const last = messages[messages.length - 1]!;
      const results = Array.isArray(last.content) ? (last.content as { type: string; content?: { text: string }[] }[]) : [];
      const ran = results.find((b) => b.type === "tool_result");
      if (!ran) return { model: "m", role: "assistant", stopReason: "toolUse", content: [{ type: "tool_use", id: "call-1", name: "do", input: { number: 0 } }] };
      return { model: "m", role: "assistant", content: [{ type: "text", text: `It printed: ${ran.content![0]!.text.trim()}` }] };
    });
    const result = await c.client.callTool({ name: "with_block", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("the block ran\nIt printed: the block ran\n");
    expect(seen).toHaveLength(2);
  });

  it("do blocks and sampling without tools: a tool error saying to configure --agent (PW4020)", async () => {
    const { c, seen } = await start({ sampling: {} }, () => ({ model: "m", role: "assistant", content: { type: "text", text: "unused" } }));
    const result = await c.client.callTool({ name: "with_block", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/sampler\.pw:12:\d+: error\[PW4020\]: .*start patchwork mcp with --agent/);
    expect(seen).toHaveLength(0);
    // The server goes on serving.
    expect(textOf(await c.client.callTool({ name: "ask_about", arguments: { topic: "x" } }))).toBe("unused\n");
  });
});
