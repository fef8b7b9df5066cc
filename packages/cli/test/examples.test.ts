// Every program in examples/ runs here: in no-agent mode, and (where it thinks) with the
// scripted ACP agent through real processes: CLI → evaluator thread → ACP → test agent → MCP do.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, repoRoot } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
const scripted = (script: string) => `"${process.execPath}" "${testAgent}" "${join(repoRoot, "examples", "agents", script)}"`;

interface ExampleCase {
  noAgent: (stdout: string) => void;
  agentScript?: string;
  withAgent?: string;
}

const RECEIPT_BLOCK = "Categorized as: RECEIPT\nExtracting amount...\n";

const cases: Record<string, ExampleCase> = {
  "hello.pw": { noAgent: (out) => expect(out).toBe("Hello, world!\n") },
  "shell.pw": {
    noAgent: (out) =>
      expect(out).toBe(
        "notes; rm -rf ~\nfiles: 1\nno file called missing (exit status 1)\nline: alpha\nline: beta\n",
      ),
  },
  "categorize.pw": {
    noAgent: (out) => {
      const prompt = JSON.parse(out).__think_prompt as string;
      expect(prompt).toContain("Document content:\n[... invoice for $542.00 from Acme Corp ...]");
      expect(prompt).toContain('[do 0]\ndo {\n    print("Categorized as: RECEIPT")');
      expect(prompt).toContain("[do 2]");
      expect(prompt).not.toContain("[do 3]");
    },
    agentScript: "categorize.json",
    // The preamble before the do call is not part of the think's value: only the final answer is.
    withAgent: `${RECEIPT_BLOCK}RECEIPT\n`,
  },
  "categorize.json": { noAgent: (out) => expect(out).toBe(""), agentScript: "categorize.json", withAgent: RECEIPT_BLOCK },
  "nested.json": {
    noAgent: (out) => expect(out).toBe(""),
    agentScript: "nested.json",
    withAgent: "Categorized as: RECEIPT\nAmount: $542.00\n",
  },
  "typed-think.pw": {
    noAgent: (out) => {
      const prompt = JSON.parse(out).__think_prompt as string;
      expect(prompt).toContain("Invoice #1042 from Acme Corp, total $542.00");
      expect(prompt).toMatch(/```json/);
      expect(prompt).toContain('"const": "RECEIPT"');
    },
    agentScript: "typed-think.json",
    withAgent: '{"category":"RECEIPT","confidence":0.93}\n',
  },
};

describe("examples", () => {
  it("every example has a test case", () => {
    const programs = readdirSync(join(repoRoot, "examples")).filter((f) => /\.(pw|json)$/.test(f));
    expect(programs.sort()).toEqual(Object.keys(cases).sort());
  });

  for (const [file, c] of Object.entries(cases)) {
    it(`${file} in no-agent mode`, () => {
      const r = patchwork(["run", `examples/${file}`, "--no-agent"]);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      c.noAgent(r.stdout);
    });

    if (c.agentScript) {
      it(`${file} with the scripted ACP agent`, () => {
        const r = patchwork(["run", `examples/${file}`, "--agent", scripted(c.agentScript!)], { timeoutMs: 30_000 });
        expect(r.stderr).toBe("");
        expect(r.stdout).toBe(c.withAgent);
        expect(r.status).toBe(0);
      });
    }
  }
});
