// Issue 9, item 8: every failure says one thing once.
import { describe, expect, it } from "vitest";
import { print, runThreadbare, think } from "./helpers.js";

describe("failure messages", () => {
  it("an agent that dies at initialize: PW4002 shows its stderr once", async () => {
    const run = await runThreadbare(think("hi", [print("x")], { print: true }), { onInitialize: "crash" });
    const message = run.diagnostics[0]!.message;
    expect(message).toMatch(/crashing at initialize/);
    expect(message.match(/agent stderr:/g)).toHaveLength(1);
    expect(message.match(/crashing at initialize/g)).toHaveLength(1);
  });
});
