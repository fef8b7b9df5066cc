// In-process tests: the MCP endpoints' token checks, the redirect actor, and a custom AsyncAgent.
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpHub } from "../dist/mcp/hub.js";
import { toolText } from "../dist/mcp/do-server.js";
import { RedirectActor, type PerSessionMessage } from "../dist/acp/redirect.js";
import { runWithAgent, type AsyncAgent, type RunEvent } from "../dist/index.js";
import { fakeEvaluator, print, think } from "./helpers.js";

describe("MCP do endpoints", () => {
  it("http: 401 without the session's token; each token reaches only its own session", async () => {
    const hub = new McpHub(() => undefined);
    try {
      const a = await hub.declare("http", async (n) => toolText(`A${n}`));
      const b = await hub.declare("http", async (n) => toolText(`B${n}`));
      const server = a.server as { url: string; headers: { name: string; value: string }[] };
      const init = { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" };
      expect((await fetch(server.url, init)).status).toBe(401);
      const wrong = { ...init, headers: { ...init.headers, authorization: "Bearer nope" } };
      const denied = await fetch(server.url, wrong);
      expect(denied.status).toBe(401);
      expect(await denied.text()).toBe("");
      const call = async (declaration: typeof server) => {
        const client = new Client({ name: "t", version: "1" });
        const headers = Object.fromEntries(declaration.headers.map((h) => [h.name, h.value]));
        await client.connect(new StreamableHTTPClientTransport(new URL(declaration.url), { requestInit: { headers } }));
        const tools = await client.listTools();
        const result = await client.callTool({ name: "do", arguments: { number: 3 } });
        const invalid = await client.callTool({ name: "do", arguments: { number: -1 } }).catch((error: Error) => error);
        await client.close();
        return { tools, result, invalid };
      };
      const ra = await call(server);
      expect(ra.tools.tools.map((t) => t.name)).toEqual(["do"]);
      expect(ra.tools.tools[0]!.description).toMatch(/numbered `do/);
      expect(ra.result.content).toEqual([{ type: "text", text: "A3" }]);
      const rb = await call(b.server as typeof server);
      expect(rb.result.content).toEqual([{ type: "text", text: "B3" }]);
      // Each session's server lists the same schema (converted once per process), and checks calls against it.
      expect(ra.tools.tools[0]!.inputSchema).toMatchObject({
        type: "object",
        properties: { number: { type: "integer", minimum: 0 } },
        required: ["number"],
      });
      expect(rb.tools.tools[0]!.inputSchema).toEqual(ra.tools.tools[0]!.inputSchema);
      for (const invalid of [ra.invalid, rb.invalid]) expect(JSON.stringify(invalid)).toMatch(/number|invalid/i);
      expect(ra.invalid).toMatchObject({ isError: true });
      await a.release();
      expect((await fetch(server.url, { ...init, headers: { ...init.headers, authorization: server.headers[0]!.value } })).status).toBe(401);
    } finally {
      await hub.close();
    }
  });

  it("http: warm() makes an agent's first requests with a token of its own, released after; real sessions work as before", async () => {
    const hub = new McpHub(() => undefined);
    try {
      expect(await hub.warm()).toBe(true);
      expect(hub.declarations).toBe(0);
      const a = await hub.declare("http", async (n) => toolText(`A${n}`));
      expect(hub.declarations).toBe(1);
      const server = a.server as { url: string; headers: { name: string; value: string }[] };
      const client = new Client({ name: "t", version: "1" });
      const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["do"]);
      expect((await client.callTool({ name: "do", arguments: { number: 2 } })).content).toEqual([{ type: "text", text: "A2" }]);
      await client.close();
      expect(a.contacted).toBe(true);
    } finally {
      await hub.close();
    }
    // A closed hub has nothing to warm, and throws nothing.
    expect(await hub.warm()).toBe(false);
  });

  it("stdio relay socket: a wrong token gets the connection closed, nothing else", async () => {
    const hub = new McpHub(() => undefined);
    try {
      const declaration = await hub.declare("stdio", async () => toolText("x"));
      const server = declaration.server as { command: string; args: string[]; env: { name: string; value: string }[] };
      expect(server.command).toBe(process.execPath);
      expect(server.args[0]).toMatch(/relay-main\.js$/);
      const socketPath = server.args[1]!;
      const received = await new Promise<string>((resolve) => {
        const socket = connect(socketPath);
        let data = "";
        socket.on("data", (d) => (data += d.toString()));
        socket.on("close", () => resolve(data));
        socket.on("connect", () => socket.write('wrong-token\n{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'));
      });
      expect(received).toBe("");
    } finally {
      await hub.close();
    }
  });
});

describe("the redirect actor", () => {
  const thinker = (sessionId: string, inbox: PerSessionMessage[]) => ({ sessionId, deliver: (m: PerSessionMessage) => inbox.push(m) });
  const update = { kind: "update", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } } as PerSessionMessage;

  it("routes to the top of the stack; pops back to the one below", () => {
    const anomalies: string[] = [];
    const actor = new RedirectActor({ anomaly: (m) => anomalies.push(m), orphan: () => undefined });
    const outer: PerSessionMessage[] = [];
    const inner: PerSessionMessage[] = [];
    const t1 = thinker("s1", outer);
    const t2 = thinker("s2", inner);
    actor.send({ type: "PushThinker", thinker: t1 });
    actor.send({ type: "PushThinker", thinker: t2 });
    actor.send({ type: "IncomingMessage", sessionId: "s2", message: update });
    expect([outer.length, inner.length]).toEqual([0, 1]);
    actor.send({ type: "PopThinker", thinker: t2 });
    actor.send({ type: "IncomingMessage", sessionId: "s1", message: update });
    expect([outer.length, inner.length]).toEqual([1, 1]);
    expect(anomalies).toEqual([]);
  });

  it("reports a message for a session that is not on top, and still delivers it to its owner", () => {
    const anomalies: string[] = [];
    const orphans: string[] = [];
    const actor = new RedirectActor({ anomaly: (m) => anomalies.push(m), orphan: (s) => orphans.push(s) });
    const outer: PerSessionMessage[] = [];
    const inner: PerSessionMessage[] = [];
    actor.send({ type: "PushThinker", thinker: thinker("s1", outer) });
    actor.send({ type: "PushThinker", thinker: thinker("s2", inner) });
    actor.send({ type: "IncomingMessage", sessionId: "s1", message: update });
    expect([outer.length, inner.length]).toEqual([1, 0]);
    expect(anomalies[0]).toMatch(/protocol anomaly: update for session s1, but the active think is session s2/);
    actor.send({ type: "IncomingMessage", sessionId: "gone", message: update });
    expect(orphans).toEqual(["gone"]);
  });
});

describe("a session being set up", () => {
  const update = { kind: "update", update: { sessionUpdate: "current_mode_update", currentModeId: "read-only" } } as PerSessionMessage;

  it("keeps its messages until its handler is pushed (no anomaly), in order", () => {
    const anomalies: string[] = [];
    const actor = new RedirectActor({ anomaly: (m) => anomalies.push(m), orphan: () => undefined });
    const outer: PerSessionMessage[] = [];
    const inner: PerSessionMessage[] = [];
    actor.send({ type: "PushThinker", thinker: { sessionId: "s1", deliver: (m) => outer.push(m) } });
    actor.expect("s2");
    actor.send({ type: "IncomingMessage", sessionId: "s2", message: update });
    actor.send({ type: "IncomingMessage", sessionId: "s2", message: { ...update, kind: "update" } });
    expect([outer.length, inner.length]).toEqual([0, 0]);
    actor.send({ type: "PushThinker", thinker: { sessionId: "s2", deliver: (m) => inner.push(m) } });
    expect([outer.length, inner.length]).toEqual([0, 2]);
    actor.send({ type: "IncomingMessage", sessionId: "s2", message: update });
    expect(inner.length).toBe(3);
    expect(anomalies).toEqual([]);
  });

  it("forgotten (its set-up failed): later messages are orphans again", () => {
    const orphans: string[] = [];
    const actor = new RedirectActor({ anomaly: () => undefined, orphan: (s) => orphans.push(s) });
    actor.expect("s3");
    actor.forget("s3");
    actor.send({ type: "IncomingMessage", sessionId: "s3", message: update });
    expect(orphans).toEqual(["s3"]);
  });
});

describe("a custom AsyncAgent on the evaluator thread", () => {
  it("runs children through runChild, continues with followUp, and gets agent events out", async () => {
    const seen: string[] = [];
    const agent: AsyncAgent = {
      async think(request, runChild, _signal, context) {
        seen.push(request.prompt);
        const child = await runChild(0);
        const missing = await runChild(5);
        context.emit({ type: "agent-text", thinkId: context.thinkId, text: "hi" });
        return {
          text: `not json (${child.ok ? child.text.trim() : "?"}, ${missing.ok ? "?" : "missing"})`,
          followUp: async (message) => {
            seen.push(message);
            return { text: '{"n": 1}' };
          },
        };
      },
    };
    const events: RunEvent[] = [];
    const result = await runWithAgent({
      source: JSON.stringify(think("typed please", [print("from child")], { typed: true, print: true })),
      fileName: "p.json",
      agent,
      evaluatorModule: fakeEvaluator,
      writeOutput: false,
      onEvent: (e) => events.push(e),
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.value).toBe('{"n": 1}');
    expect(seen).toEqual(["typed please", "Your answer was not JSON. Answer with JSON only."]);
    expect(result.output).toBe('from child\n{"n": 1}\n');
    expect(events.some((e) => e.type === "agent-text")).toBe(true);
  });

  it("an AgentError thrown by the agent becomes a diagnostic with its code", async () => {
    const { AgentError } = await import("@patchwork/interpreter");
    const agent: AsyncAgent = {
      think: async () => {
        throw new AgentError("PW4007", "nope");
      },
    };
    const result = await runWithAgent({
      source: JSON.stringify(think("x")),
      fileName: "p.json",
      agent,
      evaluatorModule: fakeEvaluator,
      writeOutput: false,
    });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: "PW4007", message: "nope" });
  });
});
