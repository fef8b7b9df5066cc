// Sessions made ahead of need for the panel's programs (`patchwork acp`, docs/agent.md "Sessions
// made ahead"): counted and ordered from the scripted successor's own log (a file it appends to
// as each message arrives and before it answers), with a real successor process behind
// `serveAcpProxy`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scratch } from "./helpers.js";
import { Panel } from "./proxy-helpers.js";

let panel: Panel | null = null;
afterEach(async () => {
  await panel?.close();
  panel = null;
});

let logs = 0;

/** A script whose agent logs to a file of its own; returns it and a reader of that log. */
function logged(script: object): { script: object; log: () => string[] } {
  const file = join(scratch, `panel-agent-log-${++logs}.txt`);
  return { script: { ...script, logFile: file }, log: () => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []) };
}

const created = (log: string[]) => log.filter((l) => l.startsWith("session created:")).map((l) => l.slice("session created: ".length));
const closed = (log: string[]) => log.filter((l) => l.startsWith("session closed:")).map((l) => l.slice("session closed: ".length));
/** `session/new` and `session/prompt` (with its session) in the order they reached the agent. */
const arrivals = (log: string[]) =>
  log.filter((l) => l === "arrived: session/new" || l.startsWith("arrived: session/prompt")).map((l) => l.slice("arrived: session/".length));

/** Waits (generously) until `ready` holds for the agent's log: it is written by another process. */
async function until(log: () => string[], ready: (log: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  while (!ready(log()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return log();
}

const NESTED = `{
  var items = ["apple", "carrot"]
  print(think {
    sort these: \${items}
    do {
      print(think { say fruit or vegetable })
    }
  })
}`;

// Each think's session waits this long at the agent: a think that waits for its own shows it.
const SLOW_NEW = 300;

describe("patchwork acp: a panel program's sessions are made ahead of need", () => {
  it("nested thinks: both sessions are asked for as the program starts, before the outer think prompts", async () => {
    const { script, log } = logged({
      sessionNewDelayMs: SLOW_NEW,
      prompts: [
        { match: "sort these", steps: [{ do: 0 }, { reply: "sorted" }] },
        { match: "fruit or vegetable", steps: [{ reply: "fruit" }] },
      ],
    });
    panel = await Panel.open(script);
    const id = await panel.newSession();
    const chat = created(log());
    expect(chat).toEqual(["test-session-1"]);
    const started = Date.now();
    const { text } = await panel.prompt(id, NESTED);
    const took = Date.now() - started;
    expect(text).toBe("fruit\nsorted\n");
    // The chat's session, then the program's two side by side, then the thinks' prompts in them.
    expect(arrivals(log())).toEqual(["new", "new", "new", "prompt test-session-2", "prompt test-session-3"]);
    // The inner think did not wait for a session of its own: one session/new's wait in all, not two.
    expect(took).toBeLessThan(2 * SLOW_NEW + 1500);
    // Each think's session is closed when its think ends.
    expect((await until(log, (l) => closed(l).length >= 2)).filter((l) => l.startsWith("session closed:"))).toEqual(
      expect.arrayContaining(["session closed: test-session-2", "session closed: test-session-3"]),
    );
  });

  it("without sessions made ahead (prepareSessions: false) each think asks for its session when it starts", async () => {
    const { script, log } = logged({
      prompts: [
        { match: "sort these", steps: [{ do: 0 }, { reply: "sorted" }] },
        { match: "fruit or vegetable", steps: [{ reply: "fruit" }] },
      ],
    });
    panel = await Panel.open(script, { proxy: { prepareSessions: false } });
    const id = await panel.newSession();
    expect((await panel.prompt(id, NESTED)).text).toBe("fruit\nsorted\n");
    expect(arrivals(log())).toEqual(["new", "new", "prompt test-session-2", "new", "prompt test-session-3"]);
  });

  it("never more than the bound ahead (two for one program), and none for a program that cannot think", async () => {
    const { script, log } = logged({ prompts: [{ match: "step", steps: [{ reply: "ok" }] }] });
    panel = await Panel.open(script);
    const id = await panel.newSession();
    expect((await panel.prompt(id, '{ print("no think here") }')).text).toBe("no think here\n");
    expect(created(log())).toEqual(["test-session-1"]);
    const five = "{\n" + [1, 2, 3, 4, 5].map((n) => `  print(think { step ${n} })`).join("\n") + "\n}";
    expect((await panel.prompt(id, five)).text).toBe("ok\nok\nok\nok\nok\n");
    const order = arrivals(log());
    // Before the first think's prompt: the chat's session and two made ahead, not five.
    expect(order.slice(0, order.indexOf("prompt test-session-2"))).toEqual(["new", "new", "new"]);
    // Five thinks, five sessions (besides the chat's): each spare taken, none left over.
    expect(order.filter((a) => a === "new")).toHaveLength(6);
    expect(order.filter((a) => a.startsWith("prompt"))).toHaveLength(5);
  });

  it("a spare no think took is reused by the next program's think, and closed when the panel closes", async () => {
    const { script, log } = logged({ prompts: [{ match: "maybe", steps: [{ reply: "yes" }] }] });
    panel = await Panel.open(script);
    const id = await panel.newSession();
    // The think is in a branch that does not run: its session made ahead stays unused.
    expect((await panel.prompt(id, '{\n  if false {\n    print(think { maybe })\n  }\n  print("skipped")\n}')).text).toBe("skipped\n");
    expect(await until(log, (l) => created(l).length >= 2).then(created)).toEqual(["test-session-1", "test-session-2"]);
    // The next program's think takes it: no new session.
    expect((await panel.prompt(id, "{ print(think { maybe }) }")).text).toBe("yes\n");
    expect(arrivals(log())).toEqual(["new", "new", "prompt test-session-2"]);
    // Its next program makes one ahead again, left unused; the panel's close closes it.
    expect((await panel.prompt(id, '{\n  if false {\n    print(think { maybe })\n  }\n}')).text).toBe("");
    const spare = (await until(log, (l) => created(l).length >= 3).then(created))[2]!;
    await panel.close();
    panel = null;
    expect(closed(log())).toContain(spare);
  });
});
