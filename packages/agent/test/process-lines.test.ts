// Issue 21 §3: the agent's stdout read line by line in linear time, a line past the limit is a
// clear PW4005 fault (not exhausted memory), and protocol noise is reported, not passed on to
// the ACP library (which would print it raw to stderr). A real child process writes the lines.
import { describe, expect, it } from "vitest";
import { AgentProcess, MAX_MESSAGE_LINE } from "../src/acp/process.js";

/** An "agent" that writes `script`'s lines (built in the child, not passed through argv) and then waits. */
function writer(body: string): AgentProcess {
  const code = `${body}; setInterval(() => {}, 1000);`;
  return new AgentProcess({ command: process.execPath, args: ["-e", code] }, { cwd: process.cwd() });
}

async function read(proc: AgentProcess, count: number): Promise<unknown[]> {
  const reader = proc.stream.readable.getReader();
  const got: unknown[] = [];
  while (got.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    got.push(value);
  }
  reader.releaseLock();
  return got;
}

describe("the agent's stdout", { timeout: 120_000 }, () => {
  it("reads a 50 MB message line in linear time", async () => {
    const proc = writer(
      `const t = "a".repeat(50 * 1024 * 1024); process.stdout.write(JSON.stringify({jsonrpc: "2.0", method: "big", params: {t}}) + "\\n" + JSON.stringify({jsonrpc: "2.0", method: "after"}) + "\\n")`,
    );
    try {
      const started = performance.now();
      const [big, after] = (await read(proc, 2)) as { method: string; params?: { t: string } }[];
      const ms = performance.now() - started;
      expect(big!.method).toBe("big");
      expect(big!.params!.t.length).toBe(50 * 1024 * 1024);
      expect(after!.method).toBe("after");
      // Quadratic reading took 11 s on this machine; linear takes well under a second quiet.
      expect(ms).toBeLessThan(8_000);
      expect(proc.fault).toBeNull();
    } finally {
      await proc.kill();
    }
  });

  it("a 100 MB line is a PW4005 fault naming the limit", async () => {
    const proc = writer(`process.stdout.write('{"jsonrpc":"2.0","method":"x","params":"' + "b".repeat(100 * 1024 * 1024) + '"}\\n')`);
    try {
      const reader = proc.stream.readable.getReader();
      await expect(reader.read()).rejects.toThrow(/longer than 64 MiB/);
      expect(proc.fault?.code).toBe("PW4005");
      expect(proc.fault?.message).toMatch(/^the agent wrote a message line longer than 64 MiB to its stdout \(it starts "\{\\"jsonrpc\\"/);
      expect(MAX_MESSAGE_LINE).toBe(64 * 1024 * 1024);
    } finally {
      await proc.kill();
    }
  });

  it("an answer to a request never sent is noise for the run's events, not a message", async () => {
    const proc = writer(
      `process.stdout.write(JSON.stringify({jsonrpc: "2.0", id: 999, result: {}}) + "\\n" + JSON.stringify({jsonrpc: "2.0", method: "real"}) + "\\n")`,
    );
    const noise: string[] = [];
    proc.onNoise((m) => noise.push(m));
    try {
      const [first] = (await read(proc, 1)) as { method: string }[];
      expect(first!.method).toBe("real");
      expect(noise).toEqual(["the agent sent an answer to a request Patchwork did not send (id 999); ignored"]);
    } finally {
      await proc.kill();
    }
  });
});
