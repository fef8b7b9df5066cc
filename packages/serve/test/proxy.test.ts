// `serveAcpProxy` (`patchwork acp`) with an in-process editor (the SDK's ACP client) and the
// scripted test agent as the successor: pass-through, programs, state, cancellation.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { groupAlive, scratch } from "./helpers.js";
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

  it("sums the thinks' usage into the turn's, and their context tokens and cost into the session's usage_update", async () => {
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    const update = { sessionUpdate: "usage_update", used: 100, size: 1000, cost: { amount: 0.5, currency: "USD" } };
    panel = await Panel.open({ fallback: { steps: [{ update }, { promptUsage: usage }, { reply: "ok" }] } });
    const id = await panel.newSession();
    const { response, updates } = await panel.prompt(id, "{ var a = think { one }\n var b = think { two } }");
    expect(response.usage).toMatchObject({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(updates.filter((u) => u.sessionUpdate === "usage_update").at(-1)).toMatchObject({ used: 200, size: 1000, cost: { amount: 1, currency: "USD" } });
    const next = await panel.prompt(id, "{ var c = think { three } }");
    expect(next.updates.filter((u) => u.sessionUpdate === "usage_update").at(-1)).toMatchObject({ used: 300, cost: { amount: 1.5, currency: "USD" } });
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
  it("a prompt ending with a bare expression shows its value as a REPL does, telling an array from a string", async () => {
    const panel = shared;
    const id = await panel.newSession();
    expect((await panel.prompt(id, '{\n  var names = ["Hello", "Patchwork"]\n  names\n}')).text).toBe('→ ["Hello","Patchwork"] (array)\n');
    expect((await panel.prompt(id, "{ names.join(\", \") }")).text).toBe('→ "Hello, Patchwork" (string)\n');
    expect((await panel.prompt(id, '{ print(names)\n len(names) }')).text).toBe("Hello, Patchwork\n→ 2 (number)\n");
    // A statement whose value is null shows nothing more; a think statement shows its answer only.
    expect((await panel.prompt(id, "{ print(1) }")).text).toBe("1\n");
    expect((await panel.prompt(id, "{ think { Name a colour. } }")).text).toBe("blue\n");
  });

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
    // The think's value with its structure (JSON), beside the answer's text (issue 23).
    expect(last).toMatchObject({ rawOutput: { value: "blue" } });
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
    const think = calls.find((u) => u.sessionUpdate === "tool_call" && u.kind === "think") as { toolCallId: string };
    expect(doCall).toMatchObject({ _meta: { patchwork: { parentToolCallId: think.toolCallId } } });
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

  it("cancels a plain prompt at the successor, which answers cancelled; the session goes on", async () => {
    const panel = shared;
    const id = await panel.newSession();
    const turn = panel.prompt(id, "wait forever, please");
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    await panel.cancel(id);
    expect((await turn).response.stopReason).toBe("cancelled");
    expect(Date.now() - t0).toBeLessThan(2000);
    expect((await panel.prompt(id, "anything")).text).toBe("AGENT WAS ASKED");
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
    panel = await Panel.open({ prompts: [{ match: "die", once: true, steps: [{ text: "dying" }, { crash: true }] }], fallback: { steps: [{ reply: "back" }] } });
    const id = await panel.newSession();
    await expect(panel.prompt(id, "die now")).rejects.toThrow(/stopped during this turn/);
    const next = await panel.prompt(id, "are you there");
    expect(next.text).toMatch(/^\*\(The agent behind Patchwork was restarted \(it had stopped\), so this conversation starts afresh.*\n\nback$/s);
    expect((await panel.prompt(id, "still?")).text).toBe("back");
  });

  it("fails a program whose think's successor dies with the positioned error; the next think starts it again, the state kept", async () => {
    panel = await Panel.open({
      prompts: [
        { match: "die", once: true, steps: [{ text: "dying" }, { crash: true }] },
        { match: "pid", steps: [{ reply: "{{pid}}" }] },
      ],
    });
    const id = await panel.newSession();
    const first = await panel.prompt(id, '{\n  var kept = 5\n  var first = think { pid }\n  print("before")\n  var x = think { die now }\n}');
    expect(first.response.stopReason).toBe("end_turn");
    expect(first.text).toMatch(/^before\n```\n<prompt 1>:5:\d+: error\[PW4004\]: the agent process (was killed|exited)/);
    const second = await panel.prompt(id, "{ print(kept)\n print(think { pid } != first) }");
    expect(second.text).toBe("5\ntrue\n");
  });
});

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("patchwork acp: restarting the successor after N thinks", () => {
  it("restarts between thinks, never during a pass-through turn; the panel's conversation then starts afresh and says so once", async () => {
    const script = {
      prompts: [
        { match: "slow question", steps: [{ sleep: 3000 }, { reply: "slow {{pid}}" }] },
        { match: "turn", steps: [{ reply: "{{pid}}" }] },
        { match: "hello", steps: [{ reply: "chat {{pid}}" }] },
      ],
    };
    panel = await Panel.open(script, { proxy: { restartAfterSessions: 1 } });
    const a = await panel.newSession();
    const b = await panel.newSession();
    await panel.prompt(a, "{ var warm = 1 }");
    const first = (await panel.prompt(b, "hello")).text;
    const pid = first.replace("chat ", "");
    // B's plain turn is under way while A's second think is past the limit: no restart yet.
    const slow = panel.prompt(b, "slow question");
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    await new Promise((r) => setTimeout(r, 100));
    expect((await panel.prompt(a, "{ var p1 = think { turn 1 }\n var p2 = think { turn 2 }\n print(p1 + \" \" + p2) }")).text).toBe(`${pid} ${pid}\n`);
    expect(slowDone).toBe(false);
    expect((await slow).text).toBe(`slow ${pid}`);
    // Nothing under way now: the next think gets a new process, the old one is gone.
    const p3 = (await panel.prompt(a, "{ print(think { turn 3 }) }")).text.trim();
    expect(p3).not.toBe(pid);
    expect(groupAlive(Number(pid))).toBe(false);
    const again = await panel.prompt(b, "hello again");
    expect(again.text).toMatch(/^\*\(The agent behind Patchwork was restarted \(it is restarted after a number of thinks.*\)\*\n\nchat (\d+)$/s);
    expect(again.text.endsWith(`chat ${p3}`)).toBe(true);
    expect((await panel.prompt(b, "hello once more")).text).toBe(`chat ${p3}`);
    // A's Patchwork state is untouched by the restart.
    expect((await panel.prompt(a, "{ print(p1 == p2) }")).text).toBe("true\n");
  });
});

describe("patchwork acp: the successor's own tool calls inside a think", () => {
  it("are tool calls nested under the think's, with unique ids, in order with their permission requests", async () => {
    const read = (title: string) => [
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "read-1",
          title,
          kind: "read",
          status: "pending",
          rawInput: { path: "notes.md" },
          locations: [{ path: "/project/notes.md", line: 3 }],
        },
      },
      { permission: title, toolCallId: "read-1" },
      {
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId: "read-1",
          status: "completed",
          content: [{ type: "content", content: { type: "text", text: `contents for ${title}` } }],
        },
      },
    ];
    const script = {
      prompts: [
        { match: "Inspect the notes", steps: [...read("Read notes.md"), { do: 0 }, { reply: "first {{permission}}" }] },
        { match: "Inspect again", steps: [...read("Read notes.md again"), { reply: "second {{permission}}" }] },
      ],
    };
    panel = await Panel.open(script);
    const id = await panel.newSession();
    const from = panel.log.length;
    const { text } = await panel.prompt(id, '{\n  var r = think {\n    Inspect the notes.\n    do { print("in do") }\n  }\n  print(r)\n  print(think { Inspect again. })\n}');
    expect(text).toBe("in do\nfirst allow\nsecond allow\n");
    const log = panel.log.slice(from).filter((e) => e.sessionId === id);
    const at = (test: (e: (typeof log)[number]) => boolean) => {
      const i = log.findIndex(test);
      expect(i).toBeGreaterThanOrEqual(0);
      return i;
    };
    const update = (e: (typeof log)[number]) => ("update" in e ? (e.update as acp.SessionUpdate & { toolCallId?: string; status?: string }) : null);
    const thinks = log.flatMap((e) => {
      const u = update(e);
      return u?.sessionUpdate === "tool_call" && u.kind === "think" ? [u.toolCallId!] : [];
    });
    expect(thinks).toHaveLength(2);
    const [t1, t2] = thinks as [string, string];
    for (const [think, title] of [[t1, "Read notes.md"], [t2, "Read notes.md again"]] as const) {
      const nestedId = `${think}/read-1`;
      const start = at((e) => update(e)?.sessionUpdate === "tool_call" && update(e)!.toolCallId === nestedId);
      expect(update(log[start]!)).toMatchObject({
        title,
        kind: "read",
        status: "pending",
        rawInput: { path: "notes.md" },
        locations: [{ path: "/project/notes.md", line: 3 }],
        _meta: { patchwork: { parentToolCallId: think } },
      });
      const asked = at((e) => "permission" in e && e.permission.toolCall.title === title);
      expect((log[asked] as { permission: acp.RequestPermissionRequest }).permission.toolCall.toolCallId).toBe(nestedId);
      const done = at((e) => update(e)?.toolCallId === nestedId && update(e)!.status === "completed");
      expect(JSON.stringify(update(log[done]!))).toContain(`contents for ${title}`);
      const thinkEnd = at((e) => update(e)?.toolCallId === think && update(e)!.status === "completed");
      expect([start < asked, asked < done, done < thinkEnd]).toEqual([true, true, true]);
    }
    // The do block is shown once, as `do block 0`, after the nested read; not as the agent's call of the do tool.
    const doBlock = at((e) => update(e)?.sessionUpdate === "tool_call" && (update(e) as { title?: string }).title === "do block 0");
    expect(doBlock).toBeGreaterThan(at((e) => update(e)?.toolCallId === `${t1}/read-1` && update(e)!.status === "completed"));
    expect(log.some((e) => update(e)?.toolCallId?.startsWith(`${t1}/do-`))).toBe(false);
  });
});

describe("patchwork acp: each panel session works in its own directory", () => {
  it("runs programs (commands, files, imports, /run) and its thinks' and chat's successor sessions in the session's cwd", async () => {
    const dirs = ["left", "right"].map((name) => {
      const dir = join(scratch, `cwd-${name}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "data.txt"), `data of ${name}`);
      writeFileSync(join(dir, "lib.pw"), `export fun name() { return "lib of ${name}" }\n`);
      writeFileSync(join(dir, "prog.pw"), `print("prog of ${name}")\n`);
      return dir;
    });
    const script = { prompts: [{ match: "Where", steps: [{ reply: "think in {{cwd}}" }] }], fallback: { steps: [{ reply: "chat in {{cwd}}" }] } };
    panel = await Panel.open(script);
    const sessions = await Promise.all(dirs.map((dir) => panel!.newSession(dir)));
    const program = '{\n  import lib from "./lib.pw"\n  print(read("data.txt"))\n  $ pwd\n  print(lib.name())\n  print(think { Where are you? })\n}';
    // Both programs at once: their thinks run side by side on the one successor.
    const runs = await Promise.all(sessions.map((id) => panel!.prompt(id, program)));
    for (const [i, name] of ["left", "right"].entries()) {
      const dir = dirs[i]!;
      expect(runs[i]!.text).toBe(`data of ${name}\n${dir}\nlib of ${name}\nthink in ${dir}\n`);
      expect((await panel.prompt(sessions[i]!, "/run prog.pw")).text).toBe(`prog of ${name}\n`);
      expect((await panel.prompt(sessions[i]!, "where is the chat?")).text).toBe(`chat in ${dir}`);
    }
    // One after the other, alternating: a session made ahead of time for one directory is not used for the other.
    for (const i of [0, 1, 0, 1]) expect((await panel.prompt(sessions[i]!, "{ print(think { Where now? }) }")).text).toBe(`think in ${dirs[i]}\n`);
    expect(panel.warnings.filter((w) => w.includes("anomaly"))).toEqual([]);
  });

  it("refuses a session whose cwd is not an absolute directory", async () => {
    panel = await Panel.open({ prompts: [] });
    await expect(panel.newSession("relative/dir")).rejects.toThrow(/absolute/);
    await expect(panel.newSession(join(scratch, "no-such-dir"))).rejects.toThrow(/not a directory/);
  });
});
