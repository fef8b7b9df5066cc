// An agent with one MCP registry per directory (OpenCode's profile, `mcpScope: "directory"`):
// the `do` endpoint is named in one `session/new` of the directory only, and the agent has it
// once that one is answered. A session of the same directory answered earlier (made side by
// side: sessions ahead, workers' thinks) is not prompted before then, or its think would run
// without the tool. The scripted agent, called "OpenCode", answers a `session/new` that names
// MCP servers later than one that names none, as OpenCode does while it connects to them.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runWith, scratch, scriptedAgent } from "./helpers.js";

const TWO_WORKERS = `worker step(n: string) {
    return think {
        step \${n}
    }
}

worker main() {
    var [a, b] = self.delegate([step("a"), step("b")]).await
    print(a + b)
}
`;

let logs = 0;

describe("a directory's shared do endpoint (OpenCode)", () => {
  for (const ahead of [true, false]) {
    it(`no session of the directory is prompted before the session/new that names the endpoint is answered (sessions ahead ${ahead ? "on" : "off"})`, async () => {
      const logFile = join(scratch, `shared-order-${++logs}.txt`);
      const script = { agentName: "OpenCode", mcpServersDelayMs: 600, logFile, prompts: [{ match: "step", steps: [{ reply: "ok" }] }] };
      const run = await runWith(TWO_WORKERS, "two.pw", script, { agent: { command: scriptedAgent(script), prepareSessions: ahead } });
      expect(run.events.some((e) => e.type === "session-ahead")).toBe(ahead);
      expect(run.diagnostics).toEqual([]);
      expect(run.output).toBe("okok\n");
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8").trim().split("\n") : [];
      const naming = log.filter((l) => l.startsWith("mcp servers of ")).map((l) => l.slice("mcp servers of ".length).split(":")[0]);
      // Named once in the directory.
      expect(naming).toHaveLength(1);
      const named = log.indexOf(`session created: ${naming[0]}`);
      const prompts = log.flatMap((l, i) => (l.startsWith("prompt received: ") ? [i] : []));
      expect(prompts).toHaveLength(2);
      for (const at of prompts) expect(at, log.join("\n")).toBeGreaterThan(named);
    });
  }
});
