// End to end through real processes: evaluator thread → ACP runtime → scripted agent → MCP do.
import { describe, expect, it } from "vitest";
import { block, groupAlive, print, runThreadbare, think } from "./helpers.js";

const categorize = think(
  "You are categorizing a document. Call do(0) if it's a RECEIPT, do(1) if it's a CONTRACT, or do(2) if it's PERSONAL correspondence.\n\nDocument content:\n[... invoice for $542.00 from Acme Corp ...]",
  [
    block(print("Categorized as: RECEIPT"), print("Extracting amount...")),
    block(print("Categorized as: CONTRACT"), print("Flagging for legal review...")),
    print("Categorized as: PERSONAL"),
  ],
  { print: true },
);

const categorizeScript = (extra: object = {}) => ({
  ...extra,
  prompts: [{ match: "categorizing", steps: [{ text: "It is a receipt. " }, { do: 0 }, { reply: "The tool said: {{do}}" }] }],
});

describe("the categorization program (seeds)", () => {
  for (const transport of ["http", "stdio"] as const) {
    it(`runs do(0) over ${transport} and returns what the block printed to the LLM`, async () => {
      const run = await runThreadbare(categorize, categorizeScript(), { mcpTransport: transport });
      expect(run.diagnostics).toEqual([]);
      expect(run.ok).toBe(true);
      expect(run.exitCode).toBe(0);
      expect(run.output.startsWith("Categorized as: RECEIPT\nExtracting amount...\n")).toBe(true);
      // The preamble before the do call is not part of the value: only the final message is.
      expect(run.value).toBe("The tool said: Categorized as: RECEIPT\nExtracting amount...\n");
      const session = run.events.find((e) => e.type === "session");
      expect(session).toMatchObject({ transport });
      const kinds = run.events.map((e) => e.type).filter((t) => t.startsWith("think") || t.startsWith("do"));
      expect(kinds).toEqual(["think-start", "do-start", "do-end", "think-end"]);
      expect(run.agentPid).toBeGreaterThan(0);
      expect(groupAlive(run.agentPid!)).toBe(false);
    });
  }

  it("picks http when the agent advertises it, stdio otherwise", async () => {
    const http = await runThreadbare(categorize, categorizeScript());
    expect(http.events.find((e) => e.type === "session")).toMatchObject({ transport: "http" });
    const stdio = await runThreadbare(categorize, categorizeScript({ mcpHttp: false }));
    expect(stdio.events.find((e) => e.type === "session")).toMatchObject({ transport: "stdio" });
    expect(stdio.value).toContain("Categorized as: RECEIPT");
  });

  it("serves do over the ACP connection when acp is forced and advertised", async () => {
    const run = await runThreadbare(categorize, categorizeScript({ mcpAcp: true }), { mcpTransport: "acp" });
    expect(run.diagnostics).toEqual([]);
    expect(run.value).toContain("Categorized as: RECEIPT\nExtracting amount...");
  });

  it("a forced transport the agent does not advertise fails each think with do blocks up front (PW4012); others run", async () => {
    const run = await runThreadbare(categorize, categorizeScript({ mcpHttp: false }), { mcpTransport: "http" });
    expect(run.ok).toBe(false);
    expect(run.diagnostics).toHaveLength(1);
    expect(run.diagnostics[0]).toMatchObject({ code: "PW4012" });
    expect(run.diagnostics[0]!.message).toMatch(/mcpCapabilities\.http.*: the do blocks of this think cannot run$/);
    expect(run.events.some((e) => e.type === "session")).toBe(false);
    const acp = await runThreadbare(categorize, categorizeScript(), { mcpTransport: "acp" });
    expect(acp.diagnostics[0]).toMatchObject({ code: "PW4012" });
    const plain = await runThreadbare(think("no blocks", [], { print: true }), { prompts: [{ steps: [{ reply: "fine" }] }] }, { mcpTransport: "acp" });
    expect(plain.diagnostics).toEqual([]);
    expect(plain.output).toBe("fine\n");
  });

  it("streams agent text, tool calls and thoughts as events", async () => {
    const run = await runThreadbare(think("hello", [], { print: true }), {
      prompts: [{ steps: [{ thought: "hmm" }, { toolCall: "Read file" }, { text: "a" }, { text: "b" }, { reply: "c" }] }],
    });
    expect(run.value).toBe("abc");
    expect(run.events.filter((e) => e.type === "agent-text").map((e) => (e as { text: string }).text)).toEqual(["a", "b", "c"]);
    expect(run.events.some((e) => e.type === "agent-thought")).toBe(true);
    expect(run.events.some((e) => e.type === "tool-call" && e.title === "Read file")).toBe(true);
  });
});

describe("nesting", () => {
  it("runs the nested example: inner think inside the do child, then back to the outer", async () => {
    const program = think("Categorize this document. do(0)=RECEIPT, do(1)=CONTRACT", [
      block(
        print("Categorized as: RECEIPT"),
        think("Extract the dollar amount from this receipt. do(0) to confirm extraction.", [print("Amount: $542.00")], {
          print: true,
        }),
      ),
      print("Categorized as: CONTRACT"),
    ], { print: true });
    const run = await runThreadbare(program, {
      prompts: [
        { match: "Categorize", steps: [{ do: 0 }, { reply: "outer saw: {{do}}" }] },
        { match: "Extract", steps: [{ do: 0 }, { reply: "inner confirmed {{do}}" }] },
      ],
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.output.split("\n").filter(Boolean)).toEqual([
      "Categorized as: RECEIPT",
      "Amount: $542.00",
      "inner confirmed Amount: $542.00",
      "outer saw: Categorized as: RECEIPT",
      "Amount: $542.00",
      "inner confirmed Amount: $542.00",
    ]);
    const order = run.events
      .filter((e) => e.type === "think-start" || e.type === "think-end")
      .map((e) => `${e.type}:${(e as { id: number }).id}`);
    expect(order).toEqual(["think-start:1", "think-start:2", "think-end:2", "think-end:1"]);
    expect(run.events.some((e) => e.type === "anomaly")).toBe(false);
  });

  it("reports a message for a session that is not on top, and still delivers it to its own think", async () => {
    const program = think("outer: do(0)", [think("inner", [], { print: true })], { print: true });
    const run = await runThreadbare(program, {
      prompts: [
        { match: "outer", steps: [{ text: "A" }, { do: 0 }, { reply: "C" }] },
        { match: "inner", steps: [{ textFor: "test-session-1", text: "B" }, { reply: "inner reply" }] },
      ],
    });
    expect(run.diagnostics).toEqual([]);
    // A came before the do call (a preamble); B, delivered late to the outer think, and C follow it.
    expect(run.output).toBe("inner reply\nBC\n");
    const anomaly = run.events.find((e) => e.type === "anomaly");
    expect(anomaly).toMatchObject({ code: "PW4015" });
    expect((anomaly as { message: string }).message).toMatch(/session test-session-1, but the active think is session test-session-2/);
  });

  it("nests 20 levels deep without deadlock", async () => {
    const depth = 20;
    let program: object = print("bottom reached");
    for (let level = depth; level >= 1; level--) program = think(`[level ${level}] go deeper with do(0)`, [program]);
    const run = await runThreadbare(program, {
      prompts: [{ match: "[level", steps: [{ do: 0 }, { reply: "<{{do}}>" }] }],
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("bottom reached\n");
    // Every level's do child prints "bottom reached" (from the innermost print), so each level sees it.
    expect(run.value).toBe("<bottom reached\n>");
    expect(run.events.filter((e) => e.type === "session")).toHaveLength(depth);
  });

  it("runs 100 thinks in a loop in one run", async () => {
    const program = { Loop: { times: 100, body: think("count me, then do(0)", [print("tick")]) } };
    const run = await runThreadbare(program, { prompts: [{ match: "count me", steps: [{ do: 0 }, { reply: "ok" }] }] });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("tick\n".repeat(100));
    expect(run.events.filter((e) => e.type === "think-end")).toHaveLength(100);
  });
});
