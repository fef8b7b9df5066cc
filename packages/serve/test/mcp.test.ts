// `patchwork mcp` end to end: the MCP SDK's own client over real stdio to the CLI process.
// Listing (names, doc comments, schemas), calls with typed and bad arguments, no-agent mode,
// an ACP agent for thinks, progress, cancellation of a running shell command, concurrency and
// its bound, separate sessions per call, list_changed after an edit, Streamable HTTP.
import { spawn, spawnSync } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { livingProcesses, scriptedAgent } from "./helpers.js";
import { connect, descendants, folderWith, patchworkBin, processesWith, recordProgress, textOf, until, type Connected } from "./mcp-helpers.js";

const GREETER = `# Greeter: skills for saying hello.
type Mood = "calm" | "loud"

export default trait Greeter: Agent {
  # Greets someone by name,
  # as often as asked.
  @skill greet
  fun greet(name: string, times: number, mood: Mood, tags: [string], extra: {note: string}, nick: string | null): string {
    print("greeting \${name}")
    return "Hello, \${name} x\${times} (\${mood}, \${len(tags)} tags, \${extra.note}, \${nick})"
  }

  # Echoes what it gets, untyped.
  @command echo
  fun echo(what) {
    return what
  }

  # Fails at run time.
  @skill broken
  fun broken() {
    var x = null
    return x.name
  }

  # Thinks twice.
  @skill muse
  fun muse(topic: string) {
    var a = think { Say something about \${topic}. }
    think { And once more. }
    return a
  }

  # Sleeps.
  @skill nap
  fun nap(seconds: number) {
    $ sleep \${seconds}
    return "rested"
  }

  # Runs for long, after saying where its session's files are.
  @skill slow
  fun slow(marker: string) {
    $ touch \${self.session.dir}/scratch && echo \${self.session.dir} > \${marker}
    $ sleep 30
  }

  # Its own session.
  @skill whoami
  fun whoami() {
    return self.session.id
  }

  # Two workers, side by side.
  @skill pair
  fun pair() {
    var rs = self.delegate([double(1), double(2)]).await
    return rs
  }

  fun helper() { return 1 }
}

worker double(x) {
  return x * 2
}
`;

const LOOPS = `export default trait Looper: Agent {
  @skill walk
  fun walk(n: number) {
    for i in 1...n { $ sleep 0.15 }
    return n
  }
}
`;

/** Each token's progress notifications: progress, total, message. */
function recordNotes(client: Connected["client"]): (token: unknown) => { progress: number; total?: number; message?: string }[] {
  const seen: { token: unknown; note: { progress: number; total?: number; message?: string } }[] = [];
  client.setNotificationHandler("notifications/progress", (n) => {
    const { progressToken, progress, total, message } = n.params;
    seen.push({ token: progressToken, note: { progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) } });
  });
  return (token) => seen.filter((s) => s.token === token).map((s) => s.note);
}

const open: Connected[] = [];
async function start(args: string[], cwd: string, options: Parameters<typeof connect>[2] = {}): Promise<Connected> {
  const c = await connect(args, cwd, options);
  open.push(c);
  return c;
}
afterEach(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => undefined);
});

describe("patchwork mcp over stdio", () => {
  it("lists each skill and command with its doc comment and schemas", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const { client } = await start(["greeter.pw"], dir);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["greet", "echo", "broken", "muse", "nap", "slow", "whoami", "pair"]);
    const greet = tools[0]!;
    expect(greet.description).toBe("Greets someone by name,\nas often as asked.");
    expect(greet.inputSchema).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        times: { type: "number" },
        mood: { type: "string", enum: ["calm", "loud"] },
        tags: { type: "array", items: { type: "string" } },
        extra: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
        nick: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["name", "times", "mood", "tags", "extra"],
    });
    expect(greet.outputSchema).toEqual({ type: "object", properties: { value: { type: "string" } }, required: ["value"] });
    const echo = tools[1]!;
    expect(echo.inputSchema).toEqual({ type: "object", properties: { what: { type: "string" } }, required: ["what"] });
    expect(echo.outputSchema).toBeUndefined();
  });

  it("calls a skill with typed arguments: what it printed, then its value; structuredContent for a declared return type", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const { client } = await start(["greeter.pw"], dir);
    const result = await client.callTool({
      name: "greet",
      arguments: { name: "Ada", times: 2, mood: "loud", tags: ["a", "b"], extra: { note: "hi" } },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("greeting Ada\nHello, Ada x2 (loud, 2 tags, hi, null)\n");
    expect(result.structuredContent).toEqual({ value: "Hello, Ada x2 (loud, 2 tags, hi, null)" });
    const echoed = await client.callTool({ name: "echo", arguments: { what: { deep: [1, 2] } } });
    expect(textOf(echoed)).toBe(`{\n  "deep": [\n    1,\n    2\n  ]\n}\n`);
  });

  it("a bad argument, a runtime error, an unknown tool or parameter: a tool result with isError and the positioned message", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const { client } = await start(["greeter.pw"], dir);
    const bad = await client.callTool({ name: "greet", arguments: { name: "Ada", times: "two", mood: "calm", tags: [], extra: { note: "" } } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain(`${join(dir, "greeter.pw")}:8:27: error[PW3065]: argument 'times' expects number, got string "two"`);
    const mood = await client.callTool({ name: "greet", arguments: { name: "Ada", times: 1, mood: "angry", tags: [], extra: { note: "" } } });
    expect(textOf(mood)).toContain(`argument 'mood' expects Mood, got string "angry"`);
    const missing = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
    expect(textOf(missing)).toContain("missing argument 'times' (number)");
    const runtime = await client.callTool({ name: "broken", arguments: {} });
    expect(runtime.isError).toBe(true);
    expect(textOf(runtime)).toContain("greeter.pw:23:12: error[PW3010]: cannot read member 'name' on null");
    const unknown = await client.callTool({ name: "nope", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("there is no tool 'nope' (tools: greet, echo, broken, muse, nap, slow, whoami, pair)");
    const param = await client.callTool({ name: "echo", arguments: { what: 1, other: 2 } });
    expect(textOf(param)).toContain("echo has no parameter 'other': echo(what)");
    // The server is still there.
    expect(textOf(await client.callTool({ name: "echo", arguments: { what: "still here" } }))).toBe("still here\n");
  });

  it("no agent and no sampling: thinks evaluate to their prompt, said once in the result", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const { client } = await start(["greeter.pw"], dir, { env: { PATCHWORK_AGENT: "" } });
    const text = textOf(await client.callTool({ name: "muse", arguments: { topic: "tea" } }));
    expect(text).toContain("Say something about tea.");
    expect(text.match(/patchwork mcp has no agent/g)).toHaveLength(1);
  });

  it("no agent: a typed skill that thinks gives its prompt, which passes its return type (docs/mcp.md)", async () => {
    const dir = folderWith({
      "typed.pw": [
        "export default trait Greeter: Agent {",
        "  @skill greet",
        '  fun greet(name: string, mood: "calm" | "loud"): string {',
        "    var greeting = think { Greet ${name} in a ${mood} voice, in one line. }",
        "    return greeting",
        "  }",
        "  @skill point",
        "  fun point(): {x: number, label: string} {",
        "    return {x: 1, label: think { Name the point. }}",
        "  }",
        "  @skill wrong",
        "  fun wrong(): number {",
        '    return "not a number"',
        "  }",
        "  @skill plain",
        "  fun plain(): string {",
        '    return "no think here"',
        "  }",
        "}",
      ].join("\n"),
    });
    const { client } = await start(["typed.pw"], dir, { env: { PATCHWORK_AGENT: "" } });
    const tools = (await client.listTools()).tools;
    // A skill that thinks gives prompts, not values of the declared types: no outputSchema for this client.
    expect(tools.map((t) => [t.name, t.outputSchema !== undefined])).toEqual([["greet", false], ["point", false], ["wrong", true], ["plain", true]]);
    const greet = await client.callTool({ name: "greet", arguments: { name: "Ada", mood: "calm" } });
    expect(greet.isError).toBeFalsy();
    expect(textOf(greet)).toContain('"__think_prompt": "Greet Ada in a calm voice, in one line."');
    expect(greet.structuredContent).toBeUndefined();
    const point = await client.callTool({ name: "point", arguments: {} });
    expect(point.isError).toBeFalsy();
    expect(textOf(point)).toContain('"__think_prompt": "Name the point."');
    // Any other value is still checked.
    const wrong = await client.callTool({ name: "wrong", arguments: {} });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toContain("error[PW3004]: type mismatch: the value of 'wrong' expects number, got string");
  });

  it("takes run's options (issue 35): --no-agent over $PATCHWORK_AGENT, --verbose, --cwd, --timeout", async () => {
    const dir = folderWith({ "greeter.pw": GREETER, "here.pw": "@skill here\nfun here() {\n  return $(pwd)\n}\n" });
    const work = folderWith({});
    const agent = scriptedAgent({ prompts: [{ match: "about tea", steps: [{ text: "Thinking aloud." }, { reply: "Tea is calm." }] }, { steps: [{ reply: "Again." }] }] });
    // --no-agent: the prompts, though PATCHWORK_AGENT names an agent.
    const plain = await start(["greeter.pw", "--no-agent"], dir, { env: { PATCHWORK_AGENT: agent } });
    expect(textOf(await plain.client.callTool({ name: "muse", arguments: { topic: "tea" } }))).toContain("Say something about tea.");
    // --verbose: each call's agent text on stderr, tagged with the call; --cwd: where the skills run.
    const loud = await start(["greeter.pw", "here.pw", "--agent", agent, "--verbose", "--cwd", work, "--timeout", "60"], dir);
    const result = await loud.client.callTool({ name: "muse", arguments: { topic: "tea" } });
    expect(textOf(result)).toContain("Tea is calm.");
    await until(() => loud.stderr().includes("[muse#1] "), 5_000, "tagged verbose lines");
    expect(loud.stderr()).toMatch(/^\[muse#1\] .*Thinking aloud\./m);
    const where = await loud.client.callTool({ name: "here", arguments: {} });
    expect(textOf(where).trim()).toBe(realpathSync(work));
  });

  it("--agent answers the thinks, and progress reports each think", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const agent = scriptedAgent({ prompts: [{ match: "about tea", steps: [{ reply: "Tea is calm." }] }, { steps: [{ reply: "Again." }] }] });
    const { client } = await start(["greeter.pw", "--agent", agent], dir);
    const progress = recordProgress(client);
    const result = await client.callTool({ name: "muse", arguments: { topic: "tea" }, _meta: { progressToken: "muse-1" } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("Tea is calm.");
    expect(textOf(result)).toContain("Again."); // the answer of the think used as a statement
    expect(textOf(result)).not.toContain("no agent");
    await until(() => progress("muse-1").length >= 4, 5_000, "4 progress notifications");
    expect(progress("muse-1")).toEqual([
      expect.stringMatching(/^think 1 started \(.*greeter\.pw:29\)$/),
      "think 1 finished",
      expect.stringMatching(/^think 2 started/),
      "think 2 finished",
    ]);
  });

  it("--agent: one agent process serves every call, calls at once think side by side, and a dead agent is started again", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const agent = scriptedAgent({ prompts: [{ match: "about", steps: [{ reply: "Fine." }] }, { match: "once more", steps: [{ reply: "Again." }] }] });
    // The agent's own command line (the server's has it quoted, as an argument).
    const script = `patchwork-test-agent.js ${agent.split(" ").at(-1)!.replace(/"/g, "")}`;
    const c = await start(["greeter.pw", "--agent", agent], dir);
    const server = c.transport.pid!;
    const first = await c.client.callTool({ name: "muse", arguments: { topic: "tea" } });
    expect(textOf(first)).toBe("Again.\nFine.\n");
    const agents = descendants(server, script);
    expect(agents).toHaveLength(1);
    // Three calls at once: each call's thinks nest on their own, all through the same process.
    const three = await Promise.all(["a", "b", "c"].map((topic) => c.client.callTool({ name: "muse", arguments: { topic } })));
    expect(three.map(textOf)).toEqual(["Again.\nFine.\n", "Again.\nFine.\n", "Again.\nFine.\n"]);
    expect(descendants(server, script)).toEqual(agents);
    // The agent dies between calls: the next call starts another.
    process.kill(agents[0]!, "SIGKILL");
    await until(() => !descendants(server, script).includes(agents[0]!), 10_000, "the killed agent gone");
    const after = await c.client.callTool({ name: "muse", arguments: { topic: "coffee" } });
    expect(after.isError, textOf(after)).toBeFalsy();
    expect(textOf(after)).toBe("Again.\nFine.\n");
    const again = descendants(server, script);
    expect(again).toHaveLength(1);
    expect(again).not.toEqual(agents);
    // Closing the server stops it.
    await c.close();
    await until(() => descendants(server, script).length === 0 && !again.some((pid) => livingProcesses().some((p) => p.pid === pid)), 10_000, "the agent stopped with the server");
  });

  it("--agent that cannot start: the call that thinks is an error result saying so; calls without thinks still work", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const c = await start(["greeter.pw", "--agent", join(dir, "no-such-agent")], dir);
    const failed = await c.client.callTool({ name: "muse", arguments: { topic: "tea" } });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/greeter\.pw:29:13: error\[PW4002\]: the agent command was not found.*\n.*\n.*no-such-agent: not found/);
    expect(textOf(failed)).not.toMatch(/\n\s+at /); // no stack trace
    const echo = await c.client.callTool({ name: "echo", arguments: { what: "still here" } });
    expect(textOf(echo)).toBe("still here\n");
  });

  it("progress of a delegate task list: its tasks done of all, with the total", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const { client } = await start(["greeter.pw"], dir);
    const notes = recordNotes(client);
    const result = await client.callTool({ name: "pair", arguments: {}, _meta: { progressToken: "pair-1" } });
    expect(textOf(result)).toBe("[\n  2,\n  4\n]\n");
    const seen = notes("pair-1");
    expect(seen[0]).toEqual({ progress: 0, total: 2, message: "0/2 2 tasks" });
    expect(seen.at(-1)).toEqual({ progress: 2, total: 2, message: "2/2 2 tasks · done" });
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
  });

  it("progress of a loop: its items done of all, with the total, as it goes", async () => {
    const dir = folderWith({ "loops.pw": LOOPS });
    const { client } = await start(["loops.pw"], dir);
    const notes = recordNotes(client);
    const result = await client.callTool({ name: "walk", arguments: { n: 4 }, _meta: { progressToken: "walk-1" } });
    expect(textOf(result)).toBe("4\n");
    const seen = notes("walk-1");
    expect(seen.map((n) => [n.progress, n.total])).toEqual([[0, 4], [1, 4], [2, 4], [3, 4], [4, 4]]);
    expect(seen[0]!.message).toMatch(/^0\/4 i in .*loops\.pw:4$/);
    expect(seen.at(-1)!.message).toMatch(/^4\/4 i in .*loops\.pw:4 · done$/);
    // Without a progress token, no notification.
    await client.callTool({ name: "walk", arguments: { n: 1 } });
    expect(notes(undefined)).toEqual([]);
  });

  it("cancel: the shell command's process is gone within 2 s, the session's files removed, and the server answers the next call", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const c = await start(["greeter.pw"], dir);
    const server = c.transport.pid!;
    const controller = new AbortController();
    const marker = join(dir, "session-dir");
    const call = c.client.callTool({ name: "slow", arguments: { marker } }, { signal: controller.signal }).catch((e: Error) => e);
    await until(() => descendants(server, "sleep 30").length > 0, 15_000, "the skill's `sleep 30`");
    const sessionDir = readFileSync(marker, "utf8").trim();
    expect(existsSync(join(sessionDir, "scratch"))).toBe(true);
    const cancelledAt = Date.now();
    controller.abort("enough");
    expect(await call).toBeInstanceOf(Error);
    await until(() => descendants(server, "sleep 30").length === 0, 2_000, "the `sleep 30` to be gone");
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    await until(() => !existsSync(sessionDir), 2_000, "the session's directory to be removed");
    expect(textOf(await c.client.callTool({ name: "echo", arguments: { what: "next" } }))).toBe("next\n");
  });

  it("a client that goes away during a call: the server cancels it and exits, leaving no process behind", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const c = await start(["greeter.pw"], dir);
    const server = c.transport.pid!;
    const seconds = 31 + Math.floor(Math.random() * 1000) / 1000; // a command line no other process has
    const call = c.client.callTool({ name: "nap", arguments: { seconds } }).catch((e: Error) => e);
    await until(() => descendants(server, `sleep ${seconds}`).length > 0, 15_000, "the skill's sleep");
    expect(processesWith(`sleep ${seconds}`)).toHaveLength(1);
    await c.close();
    expect(await call).toBeInstanceOf(Error);
    await until(() => !existsSync(`/proc/${server}`) || readFileSync(`/proc/${server}/stat`, "utf8").includes(") Z "), 5_000, "the server to exit");
    await until(() => processesWith(`sleep ${seconds}`).length === 0, 5_000, `no 'sleep ${seconds}' left`);
  });

  it("SIGTERM during a call: the call is cancelled, its process group killed, and the server exits", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const c = await start(["greeter.pw"], dir);
    const server = c.transport.pid!;
    const seconds = 32 + Math.floor(Math.random() * 1000) / 1000;
    const call = c.client.callTool({ name: "nap", arguments: { seconds } }).catch((e: Error) => e);
    await until(() => processesWith(`sleep ${seconds}`).length === 1, 15_000, "the skill's sleep");
    process.kill(server, "SIGTERM");
    await until(() => !existsSync(`/proc/${server}`) || readFileSync(`/proc/${server}/stat`, "utf8").includes(") Z "), 5_000, "the server to exit");
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
    await call;
  });

  it("runs calls concurrently: 3 naps of 2 s take about one, and --max-workers 1 runs them one at a time", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const { client } = await start(["greeter.pw"], dir);
    await client.callTool({ name: "nap", arguments: { seconds: 0 } }); // warm
    let started = Date.now();
    const three = await Promise.all([1, 2, 3].map(() => client.callTool({ name: "nap", arguments: { seconds: 2 } })));
    expect(three.map(textOf)).toEqual(["rested\n", "rested\n", "rested\n"]);
    expect(Date.now() - started).toBeLessThan(4_000);

    const one = await start(["greeter.pw", "--max-workers", "1"], dir);
    started = Date.now();
    await Promise.all([1, 2, 3].map(() => one.client.callTool({ name: "nap", arguments: { seconds: 1 } })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  });

  it("each call is a run of its own: its own self.session", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const { client } = await start(["greeter.pw"], dir);
    const ids = await Promise.all([1, 2].map(() => client.callTool({ name: "whoami", arguments: {} }).then(textOf)));
    expect(ids[0]).toMatch(/^\w+\n$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it("a folder: its .pw files, clashing names prefixed with the plugin name; an edit sends list_changed", async () => {
    const dir = folderWith({
      "a.pw": "export default trait Alpha: Agent {\n  @skill hello\n  fun hello() { return \"a\" }\n}\n",
      "b.pw": "export default trait BetaTeam: Agent {\n  @skill hello\n  fun hello() { return \"b\" }\n}\n",
      "notes.txt": "not a program",
    });
    let changed = 0;
    const { client } = await start([dir], dir, {
      setup: (cl) => cl.setNotificationHandler("notifications/tools/list_changed", () => void changed++),
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["alpha_hello", "beta-team_hello"]);
    expect(textOf(await client.callTool({ name: "beta-team_hello", arguments: {} }))).toBe("b\n");
    writeFileSync(join(dir, "c.pw"), "export default trait Gamma: Agent {\n  # New.\n  @skill wave\n  fun wave() { return \"~\" }\n}\n");
    await until(() => changed > 0, 10_000, "notifications/tools/list_changed");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["alpha_hello", "beta-team_hello", "wave"]);
    expect(textOf(await client.callTool({ name: "wave", arguments: {} }))).toBe("~\n");
  });
});

describe("patchwork mcp --http", () => {
  it("serves Streamable HTTP on 127.0.0.1 with the bearer token of PATCHWORK_MCP_TOKEN; progress and sampling over it", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const child = spawn(process.execPath, [patchworkBin, "mcp", "greeter.pw", "--http", "0"], {
      cwd: dir,
      env: { ...process.env, PATCHWORK_MCP_TOKEN: "s3cret", PATCHWORK_AGENT: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      await until(() => /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr), 15_000, "the server's URL");
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)![1]!;
      const refused = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(refused.status).toBe(401);
      // A page on another site (DNS rebinding, or a browser's cross-origin request): 403, even with the token.
      const u = new URL(url);
      const foreign = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const r = httpRequest({ host: "127.0.0.1", port: u.port, path: "/mcp", method: "POST", headers: { authorization: "Bearer s3cret", "content-type": "application/json", ...headers } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          r.on("error", reject);
          r.end("{}");
        });
      expect(await foreign({ host: `evil.example:${u.port}` })).toBe(403);
      expect(await foreign({ origin: "http://evil.example" })).toBe(403);
      const client = new Client({ name: "http-test", version: "0.1.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer s3cret" } } }));
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("greet");
      const progress = recordProgress(client);
      const result = await client.callTool({ name: "muse", arguments: { topic: "tea" }, _meta: { progressToken: "http-1" } });
      expect(textOf(result)).toContain("Say something about tea.");
      await until(() => progress("http-1").length >= 1, 5_000, "a progress notification");
      expect(progress("http-1")[0]).toMatch(/^think 1 started/);
      await client.close();
      // A client that offers sampling gets the thinks, over the call's SSE stream.
      const sampler = new Client({ name: "http-sampler", version: "0.1.0" }, { capabilities: { sampling: {} } });
      sampler.setRequestHandler("sampling/createMessage", async () => ({ model: "m", role: "assistant" as const, content: { type: "text" as const, text: "Sampled over HTTP." } }));
      await sampler.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer s3cret" } } }));
      const sampled = await sampler.callTool({ name: "muse", arguments: { topic: "tea" } });
      expect(textOf(sampled)).toContain("Sampled over HTTP.");
      expect(textOf(sampled)).not.toContain("no agent");
      await sampler.close();
    } finally {
      child.kill();
    }
  });
});

describe("patchwork mcp's usage errors", () => {
  const cli = (args: string[], cwd: string) => spawnSync(process.execPath, [patchworkBin, "mcp", ...args], { cwd, encoding: "utf8", timeout: 30_000 });

  it("a missing path, a bad port, a port in use: a clear message, exit 2, no stack trace", async () => {
    const dir = folderWith({ "greeter.pw": GREETER });
    const missing = cli(["nope.pw"], dir);
    expect([missing.status, missing.stderr.split("\n")[0]]).toEqual([2, "patchwork: nope.pw: no such file or folder"]);
    const port = cli(["greeter.pw", "--http", "70000"], dir);
    expect([port.status, port.stderr.split("\n")[0]]).toEqual([2, "patchwork: --http takes a port number (0: any free port)"]);
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    try {
      const taken = (busy.address() as AddressInfo).port;
      const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [patchworkBin, "mcp", "greeter.pw", "--http", String(taken)], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("close", (status) => resolve({ status, stderr }));
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`patchwork: --http ${taken}: port ${taken} of 127.0.0.1 is in use`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      busy.close();
    }
  });
});
