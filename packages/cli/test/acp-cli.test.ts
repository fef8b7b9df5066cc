// `patchwork acp` as an editor starts it: a real process, the SDK's ACP client on its stdio,
// the scripted test agent behind it.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { patchwork, patchworkBin, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

describe("patchwork acp", () => {
  it("serves the agent panel on stdio: pass-through prompts and Patchwork programs", async () => {
    const dir = tempFiles({
      "script.json": JSON.stringify({ prompts: [{ match: "Say yes", steps: [{ reply: "yes" }] }, { steps: [{ reply: "passed: {{prompt}}" }] }] }),
    });
    const agent = `"${process.execPath}" "${testAgent}" "${join(dir, "script.json")}"`;
    const child = spawn(process.execPath, [patchworkBin, "acp", "--agent", agent], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const texts: string[] = [];
    const connection = acp
      .client({ name: "test-editor" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text") texts.push(params.update.content.text);
      })
      .connect(
        acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>),
      );
    try {
      const init = await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentInfo?.name).toBe("patchwork");
      const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] });
      const pass = await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
      expect(pass.stopReason).toBe("end_turn");
      await new Promise((r) => setTimeout(r, 50));
      expect(texts.join("")).toBe("passed: hello");
      texts.length = 0;
      const run = await connection.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: '{ var a = think { Say yes. }\n print("agent said " + a) }' }],
      });
      expect(run.stopReason).toBe("end_turn");
      await new Promise((r) => setTimeout(r, 50));
      expect(texts.join("")).toBe("agent said yes\n");
    } finally {
      connection.close();
      child.stdin.end();
    }
    const status = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    expect(status, stderr).toBe(0);
  });

  it("needs an agent, and says so", () => {
    const result = patchwork(["acp"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("patchwork acp needs the agent");
    expect(result.stdout).toBe("");
  });

  it("takes --restart-agent-after as patchwork run does, and refuses a bad count", () => {
    const result = patchwork(["acp", "--agent", "true", "--restart-agent-after", "-1"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--restart-agent-after takes a whole number of thinks");
    expect(result.stdout).toBe("");
  });
});
