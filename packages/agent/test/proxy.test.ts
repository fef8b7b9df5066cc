// `serveAcpProxy` (`patchwork acp`) with an in-process editor (the SDK's ACP client) and the
// scripted test agent as the successor: pass-through, programs, state, cancellation.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scratch } from "./helpers.js";
import { messageText, Panel, toolCalls } from "./proxy-helpers.js";

let panel: Panel | null = null;
afterEach(async () => {
  await panel?.close();
  panel = null;
});

describe("patchwork acp: pass-through", () => {
  it("forwards a non-code prompt and its whole stream, advertises its own capabilities and commands", async () => {
    panel = await Panel.open({
      prompts: [
        {
          match: "hello",
          steps: [
            { thought: "thinking" },
            { toolCall: "Read file" },
            { update: { sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] } },
            { text: "Hi " },
            { reply: "there: {{prompt}}" },
          ],
        },
      ],
    });
    expect(panel.init.agentInfo?.name).toBe("patchwork");
    expect(panel.init.agentCapabilities?.loadSession).toBe(false);
    const id = await panel.newSession();
    const { response, updates, text } = await panel.prompt(id, "hello agent");
    expect(response.stopReason).toBe("end_turn");
    expect(text).toBe("Hi there: hello agent");
    expect(updates.map((u) => u.sessionUpdate)).toEqual(
      expect.arrayContaining(["agent_thought_chunk", "tool_call", "plan", "agent_message_chunk"]),
    );
    const commands = panel.updates.get(id)!.find((u) => u.sessionUpdate === "available_commands_update");
    expect(commands && "availableCommands" in commands && commands.availableCommands.map((c) => c.name)).toEqual(["run", "check", "reset"]);
  });

  it("forwards the successor's permission requests to the editor and returns its answer", async () => {
    panel = await Panel.open({ prompts: [{ steps: [{ permission: "Edit file" }, { reply: "answer: {{permission}}" }] }] }, {
      permission: (params) => ({ outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "reject_once")!.optionId } }),
    });
    const id = await panel.newSession();
    const { text } = await panel.prompt(id, "edit something");
    expect(text).toBe("answer: reject");
    expect(panel.permissions).toHaveLength(1);
    expect(panel.permissions[0]).toMatchObject({ sessionId: id, toolCall: { title: "Edit file" } });
  });
});

describe("patchwork acp: the editor's capabilities", () => {
  it("forwards fs requests of the successor to the editor when it advertised them", async () => {
    const script = { prompts: [{ steps: [{ readFile: "/buffer.txt" }, { reply: "file: {{file}}" }] }] };
    panel = await Panel.open(script, { fs: { readTextFile: (params) => ({ content: `unsaved buffer of ${params.path}` }) } });
    const id = await panel.newSession();
    expect((await panel.prompt(id, "read it")).text).toBe("file: unsaved buffer of /buffer.txt");
  });

  it("forwards a think's permission requests for other tools to the editor; its do tool is allowed without asking", async () => {
    const script = { prompts: [{ match: "Edit", steps: [{ permission: "Write notes.md" }, { do: 0, ask: true }, { reply: "perm {{permission}} do {{do}}" }] }] };
    panel = await Panel.open(script);
    const id = await panel.newSession();
    const { text } = await panel.prompt(id, '{ print(think {\n  Edit the notes.\n  do { print("ran") }\n}) }');
    expect(text).toBe("ran\nperm allow do ran\n");
    expect(panel.permissions.map((p) => [p.sessionId, p.toolCall.title])).toEqual([[id, "Write notes.md"]]);
  });

  it("sums the thinks' usage into the turn's", async () => {
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    panel = await Panel.open({ fallback: { steps: [{ promptUsage: usage }, { reply: "ok" }] } });
    const id = await panel.newSession();
    const { response } = await panel.prompt(id, "{ var a = think { one }\n var b = think { two } }");
    expect(response.usage).toMatchObject({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
  });
});

/** One proxy (and successor) for the tests of programs: each test opens its own sessions. */
let shared: Panel;
const SHARED_SCRIPT = {
  prompts: [
    { match: "Name a colour", steps: [{ thought: "hmm" }, { text: "bl", id: "m1" }, { reply: "ue", id: "m1" }] },
    { match: "Use the tool", steps: [{ do: 0 }, { reply: "tool said {{do}}" }] },
    { match: "wait forever", steps: [{ hang: true }] },
    { match: "slow question", steps: [{ sleep: 400 }, { reply: "done" }] },
  ],
  fallback: { steps: [{ reply: "AGENT WAS ASKED" }] },
};
beforeAll(async () => {
  shared = await Panel.open(SHARED_SCRIPT, { proxy: { cancelGraceMs: 300 } });
});
afterAll(() => shared.close());

describe("patchwork acp: programs", () => {
  it("runs a { … } prompt: prints stream as message chunks, a think is a tool_call with the inner answer", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const { response, updates, text } = await panel.prompt(id, '{\n  print("asking")\n  var c = think { Name a colour. }\n  print("got " + c)\n}');
    expect(response.stopReason).toBe("end_turn");
    expect(text).toBe("asking\ngot blue\n");
    const calls = toolCalls(updates);
    const start = calls.find((u) => u.sessionUpdate === "tool_call");
    expect(start).toMatchObject({ kind: "think", title: "Name a colour.", status: "in_progress" });
    const last = calls.filter((u) => "toolCallId" in u && u.toolCallId === (start as { toolCallId: string }).toolCallId).at(-1);
    expect(last).toMatchObject({ status: "completed" });
    const content = calls.flatMap((u) => ("content" in u && u.content ? u.content : []));
    expect(JSON.stringify(content)).toContain("blue");
    expect(updates.some((u) => u.sessionUpdate === "agent_thought_chunk")).toBe(true);
  });

  it("shows each do call as a tool_call with its block number and output, and a shell command as kind execute", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const source = "```patchwork\nvar r = think {\n  Use the tool.\n  do {\n    print(\"in do\")\n    $ echo from-shell\n  }\n}\nprint(r)\n```";
    const { text, updates } = await panel.prompt(id, source);
    expect(text).toContain("in do\n");
    expect(text).toContain("from-shell\n");
    const calls = toolCalls(updates);
    const doCall = calls.find((u) => u.sessionUpdate === "tool_call" && u.title === "do block 0");
    expect(doCall).toBeDefined();
    const doId = (doCall as { toolCallId: string }).toolCallId;
    const doEnd = calls.filter((u) => (u as { toolCallId: string }).toolCallId === doId).at(-1);
    expect(doEnd).toMatchObject({ status: "completed" });
    expect(JSON.stringify(doEnd)).toContain("in do");
    expect(calls.find((u) => u.sessionUpdate === "tool_call" && u.kind === "execute" && u.title === "echo from-shell")).toBeDefined();
  });

  it("answers a parse error with the positioned diagnostic, without asking the agent", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const { response, text } = await panel.prompt(id, "{ var x = = 1 }");
    expect(response.stopReason).toBe("end_turn");
    expect(text).toMatch(/^```\n<prompt 1>:1:\d+: error\[PW\d+\]/);
    expect(text).toContain("^");
    expect(text).not.toContain("AGENT WAS ASKED");
  });

  it("ends the turn with the positioned runtime error", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const { response, text } = await panel.prompt(id, '{\n  print("before")\n  var x = len(1, 2)\n}');
    expect(response.stopReason).toBe("end_turn");
    expect(text).toMatch(/^before\n```\n<prompt 1>:3:\d+: error\[PW3\d+\]/);
  });

  it("keeps variables and functions across prompts of a session, and /reset forgets them", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const other = await panel.newSession();
    await panel.prompt(id, "{ var n = 41 }");
    await panel.prompt(id, "```patchwork\nfun twice(x) { return x * 2 }\n```");
    expect((await panel.prompt(id, "{ print(twice(n) + 1) }")).text).toBe("83\n");
    expect((await panel.prompt(other, "{ print(n) }")).text).toContain("error[");
    const reset = await panel.prompt(id, "/reset");
    expect(reset.text).toContain("reset");
    expect((await panel.prompt(id, "{ print(n) }")).text).toContain("error[");
  });

  it("/run runs a file with its arguments and keeps what it defines; /check reports syntax errors", async () => {
    const file = join(scratch, "greet.pw");
    writeFileSync(file, 'fun greet(who) { return "hello " + who }\nfun main() { print(greet(args[0])) }\n');
    writeFileSync(join(scratch, "broken.pw"), "var x = (\n");
    const panel = shared;
    const id = await panel.newSession();
    expect((await panel.prompt(id, "/run greet.pw world")).text).toBe("hello world\n");
    expect((await panel.prompt(id, '{ print(greet("again")) }')).text).toBe("hello again\n");
    expect((await panel.prompt(id, "/check greet.pw")).text).toBe("greet.pw: no syntax errors.");
    expect((await panel.prompt(id, "/check broken.pw")).text).toMatch(/broken\.pw:\d+:\d+: error/);
    expect((await panel.prompt(id, "/run missing.pw")).text).toContain("Cannot read missing.pw");
    expect((await panel.prompt(id, "/run")).text).toContain("Usage: `/run <file.pw> [args…]`");
  });
});

describe("patchwork acp: cancellation and bad input", () => {
  it("cancels a program waiting on a think within 2 s and keeps the session and its state", async () => {
    const panel = shared;
    const id = await panel.newSession();
    await panel.prompt(id, "{ var kept = 7 }");
    const turn = panel.prompt(id, '{\n  print("started")\n  var a = think { wait forever }\n  print("not reached")\n}');
    await waitFor(() => messageText(panel!.updates.get(id) ?? []).includes("started"));
    const t0 = Date.now();
    await panel.cancel(id);
    const { response, text } = await turn;
    expect(response.stopReason).toBe("cancelled");
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(text).not.toContain("not reached");
    expect((await panel.prompt(id, "{ print(kept) }")).text).toBe("7\n");
  });

  it("cancels a loop that never stops (its evaluator is restarted, the session goes on)", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const turn = panel.prompt(id, '{\n  print("looping")\n  while true { }\n}');
    await waitFor(() => messageText(panel!.updates.get(id) ?? []).includes("looping"));
    const t0 = Date.now();
    await panel.cancel(id);
    const { response, text } = await turn;
    expect(response.stopReason).toBe("cancelled");
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(text).toContain("restarted");
    expect((await panel.prompt(id, "{ print(1 + 1) }")).text).toBe("2\n");
  });

  it("cancels a running shell command", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const turn = panel.prompt(id, '{\n  print("go")\n  $ sleep 30\n}');
    await waitFor(() => messageText(panel!.updates.get(id) ?? []).includes("go"));
    const t0 = Date.now();
    await panel.cancel(id);
    expect((await turn).response.stopReason).toBe("cancelled");
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("refuses a second prompt while one runs, and code prompts with images", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const first = panel.prompt(id, "slow question");
    await new Promise((r) => setTimeout(r, 100));
    await expect(panel.prompt(id, "{ print(1) }")).rejects.toThrow(/already running/);
    expect((await first).text).toBe("done");
    const withImage = await panel.prompt(id, [
      { type: "text", text: "{ print(1) }" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    ]);
    expect(withImage.text).toContain("Patchwork prompts are text");
  });

  it("answers unknown methods and session/load with JSON-RPC errors and goes on", async () => {
    panel = await Panel.open({ prompts: [{ steps: [{ reply: "still here" }] }] });
    await expect(panel.connection.agent.request("no/such_method" as never, {} as never)).rejects.toThrow();
    await expect(
      panel.connection.agent.request("session/load" as never, { sessionId: "nope", cwd: scratch, mcpServers: [] } as never),
    ).rejects.toThrow();
    const id = await panel.newSession();
    expect((await panel.prompt(id, "ping")).text).toBe("still here");
  });

  it("fails a turn whose successor dies with a clear message; the next prompt starts it again", async () => {
    panel = await Panel.open({ prompts: [{ match: "die", once: true, steps: [{ text: "dying" }, { crash: true }] }, { steps: [{ reply: "back" }] }] });
    const id = await panel.newSession();
    await expect(panel.prompt(id, "die now")).rejects.toThrow(/stopped during this turn/);
    expect((await panel.prompt(id, "are you there")).text).toBe("back");
  });
});

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
