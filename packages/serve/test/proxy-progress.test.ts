// `patchwork acp`: the panel's progress. A loop or a delegate task list shows as an ACP plan
// (every item pending, then the current one in progress and those before it completed, at the
// end all completed) after a thought naming the count; nested loops show the outermost; a loop
// that throws leaves the items after the failure pending; a cancel stops the plan; a quick loop
// of plain code sends none. A prompt `$ cmd` runs the command in the session's folder.
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratch } from "./helpers.js";
import { Panel } from "./proxy-helpers.js";

let panel: Panel;
beforeAll(async () => {
  panel = await Panel.open({ prompts: [{ match: "Summarize", steps: [{ sleep: 150 }, { reply: "ok" }] }] });
});
afterAll(() => panel.close());

type Plan = Extract<acp.SessionUpdate, { sessionUpdate: "plan" }>;

/** Each plan update as its statuses (p, i, c), e.g. "cip". */
function statuses(updates: acp.SessionUpdate[]): string[] {
  return plans(updates).map((u) => u.entries.map((e) => e.status[0] === "i" ? "i" : e.status[0]).join(""));
}

function plans(updates: acp.SessionUpdate[]): Plan[] {
  return updates.filter((u): u is Plan => u.sessionUpdate === "plan");
}

function thoughts(updates: acp.SessionUpdate[]): string[] {
  return updates.flatMap((u) => (u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text" ? [u.content.text] : []));
}

describe("patchwork acp: a loop's plan", { timeout: 60_000 }, () => {
  it("a 3-item loop: the thought, then the plan's statuses as the reference sends them", async () => {
    const id = await panel.newSession();
    const r = await panel.prompt(id, '{ for doc in ["alpha", "beta", "gamma"] { var s = think { Summarize ${doc}. } } }');
    expect(r.response.stopReason).toBe("end_turn");
    expect(thoughts(r.updates)).toEqual(["Going through 3 docs…"]);
    expect(statuses(r.updates)).toEqual(["ppp", "ipp", "cip", "cci", "ccc"]);
    expect(plans(r.updates)[0]!.entries.map((e) => e.content)).toEqual(["alpha", "beta", "gamma"]);
    // The thought comes before the first plan.
    const first = r.updates.findIndex((u) => u.sessionUpdate === "plan");
    expect(r.updates.findIndex((u) => u.sessionUpdate === "agent_thought_chunk")).toBeLessThan(first);
  });

  it("a delegate list of 3 tasks: its tasks (worker and arguments) as the entries", async () => {
    const id = await panel.newSession();
    const r = await panel.prompt(id, "{\nworker w(n) {\n  $ sleep 0.15\n  return n * 2\n}\nprint(self.delegate([w(1), w(2), w(3)]).await)\n}");
    expect(r.text).toContain("2, 4, 6");
    expect(thoughts(r.updates)).toEqual(["Going through 3 tasks…"]);
    expect(plans(r.updates)[0]!.entries.map((e) => e.content)).toEqual(["w(1)", "w(2)", "w(3)"]);
    expect(statuses(r.updates)).toEqual(["ppp", "ipp", "cip", "cci", "ccc"]);
  });

  it("nested loops: the plan is the outermost loop's", async () => {
    const id = await panel.newSession();
    const r = await panel.prompt(id, '{ for a in ["one", "two"] { for b in [1, 2, 3] { $ sleep 0.05 } } }');
    expect(plans(r.updates).every((p) => p.entries.map((e) => e.content).join() === "one,two")).toBe(true);
    expect(statuses(r.updates)).toEqual(["pp", "ip", "ci", "cc"]);
    expect(thoughts(r.updates)).toEqual(["Going through 2 as…"]);
  });

  it("a loop that throws half-way: the items from the failure on are not completed", async () => {
    const id = await panel.newSession();
    const r = await panel.prompt(id, "{ for n in [1, 2, 0, 4] {\n  $ sleep 0.12\n  print(10 / n)\n} }");
    expect(r.text).toContain("error[PW3012]");
    expect(statuses(r.updates)).toEqual(["pppp", "ippp", "cipp", "ccip", "ccpp"]);
    expect(plans(r.updates).at(-1)!.entries.map((e) => e.content)).toEqual(["1", "2", "0 (failed)", "4"]);
  });

  it("cancel during a loop: the plan stops where it was", async () => {
    const id = await panel.newSession();
    const turn = panel.prompt(id, "{ for n in [1, 2, 3, 4, 5] { $ sleep 0.3 } }");
    const end = Date.now() + 10_000;
    const seen = () => statuses(panel.updates.get(id) ?? []);
    while (!seen().includes("cippp") && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await panel.cancel(id);
    const r = await turn;
    expect(r.response.stopReason).toBe("cancelled");
    const atEnd = seen().length;
    await new Promise((r) => setTimeout(r, 700));
    expect(seen()).toHaveLength(atEnd);
    expect(seen().at(-1)).not.toBe("ccccc");
  });

  it("a quick loop of plain code sends no plan and no thought", async () => {
    const id = await panel.newSession();
    const r = await panel.prompt(id, "{ var t = 0\nfor i in 1...2000 { t = t + i }\nprint(t) }");
    expect(r.text).toBe("2001000\n");
    expect(plans(r.updates)).toEqual([]);
    expect(thoughts(r.updates)).toEqual([]);
  });

  it("a long loop: at most 200 entries and one for the rest, updates coalesced", async () => {
    const id = await panel.newSession();
    const started = Date.now();
    const r = await panel.prompt(id, "{ var t = 0\nfor i in 1...1950 { if i % 100 == 0 { $ true }\n t = t + i } }");
    const seconds = (Date.now() - started) / 1000;
    const all = plans(r.updates);
    expect(all.length).toBeGreaterThan(1);
    expect(all.length).toBeLessThanOrEqual(3 + seconds * 10 + 1);
    for (const p of all) expect(p.entries).toHaveLength(201);
    expect(all[0]!.entries[200]!.content).toBe("… 1,750 more");
    expect(all.at(-1)!.entries.every((e) => e.status === "completed")).toBe(true);
  });
});

describe("patchwork acp: `$ cmd` prompts", { timeout: 60_000 }, () => {
  it("runs the command in the session's folder and shows its output and exit status", async () => {
    const dir = mkdtempSync(join(scratch, "shell-"));
    writeFileSync(join(dir, "here.txt"), "");
    const id = await panel.newSession(dir);
    const r = await panel.prompt(id, "$ echo hi-there && ls");
    expect(r.response.stopReason).toBe("end_turn");
    expect(r.text).toBe("hi-there\nhere.txt\n(exit status 0)\n");
    const call = r.updates.find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ title: "$ echo hi-there && ls", kind: "execute" });
    expect(r.updates.find((u) => u.sessionUpdate === "tool_call_update")).toMatchObject({ status: "completed" });
  });

  it("a failing command says so", async () => {
    const id = await panel.newSession();
    const r = await panel.prompt(id, "$ false");
    expect(r.text).toBe("(exit status 1: the command failed)\n");
    expect(r.updates.find((u) => u.sessionUpdate === "tool_call_update")).toMatchObject({ status: "failed" });
    const err = await panel.prompt(id, "$ echo oops >&2; exit 3");
    expect(err.text).toBe("oops\n(exit status 3: the command failed)\n");
  });

  it("a cancel stops the command at once", async () => {
    const id = await panel.newSession();
    const started = Date.now();
    const turn = panel.prompt(id, "$ sleep 30");
    const end = Date.now() + 10_000;
    while (!(panel.updates.get(id) ?? []).some((u) => u.sessionUpdate === "tool_call") && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    await panel.cancel(id);
    const r = await turn;
    expect(r.response.stopReason).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.updates.find((u) => u.sessionUpdate === "tool_call_update")).toMatchObject({ status: "failed" });
  });
});
