// A resumed run's replayed thinks leave its evaluator thread in batches (thread/outbox.ts): the
// first live think still finds everything before it delivered (output, events, so the journal),
// each live answer is journaled before the next think starts, and the run's output, events and
// cassette are those of a run never interrupted. Real evaluator threads, the real interpreter,
// the real journal.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatCassette, parseCassette, readCassetteText } from "@patchwork/interpreter";
import { runWithAgent, type AsyncAgent, type RunEvent } from "../dist/index.js";

const TOTAL = 240;
const KEPT = 200;
const source = `for i in 1...${TOTAL} {
  print("before $i")
  var r = think { count $i }
  print("after $i: $r")
  if i % 50 == 0 { log("logged $i") }
}
`;

/** Answers `count N` with `ok N`; `check` runs as each think is asked. */
function counting(check: (n: number) => void = () => undefined): AsyncAgent {
  return {
    think: async (request) => {
      const n = Number(/count (\d+)/.exec(request.prompt)![1]);
      check(n);
      return { text: `ok ${n}` };
    },
  };
}

/** The evaluator's events, as type and think number or text. */
function shown(events: RunEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === "think-start" || e.type === "think-end" ? [`${e.type} ${e.id}`] : e.type === "log" ? [`log ${e.text}`] : e.type === "do-start" ? [e.type] : [],
  );
}

describe("a resumed run's replay, sent in batches", () => {
  const cwd = mkdtempSync(join(tmpdir(), "pw-batches-"));

  it("delivers all it replayed before the first live think, journals each live answer before the next think, and ends as a run never interrupted", async () => {
    const full = join(cwd, "full.json");
    const output: string[] = [];
    const allEvents: RunEvent[] = [];
    const uninterrupted = await runWithAgent({
      source,
      fileName: "p.pw",
      cwd,
      agent: counting(),
      writeOutput: false,
      onEvent: (event) => allEvents.push(event),
      record: { path: full },
    });
    expect(uninterrupted.ok).toBe(true);
    const recorded = parseCassette(readFileSync(full, "utf8"), full);
    const resumed = join(cwd, "k.json");
    writeFileSync(resumed, formatCassette({ ...recorded, thinks: recorded.thinks.slice(0, KEPT) }));

    const events: RunEvent[] = [];
    const seen: { n: number; output: string; events: string[]; journaled: number }[] = [];
    const result = await runWithAgent({
      source,
      fileName: "p.pw",
      cwd,
      writeOutput: false,
      onOutput: (text) => output.push(text),
      onEvent: (event) => events.push(event),
      record: { path: resumed, resume: true },
      agent: counting((n) =>
        seen.push({
          n,
          output: output.join(""),
          events: shown(events),
          journaled: readCassetteText(readFileSync(resumed, "utf8"), resumed).cassette.thinks.length,
        }),
      ),
    });
    expect(result.ok).toBe(true);
    expect(result.recording).toMatchObject({ replayed: KEPT, live: TOTAL - KEPT, kept: KEPT });
    // Only the thinks the cassette lacked were asked.
    expect(seen.map((s) => s.n)).toEqual(Array.from({ length: TOTAL - KEPT }, (_, i) => KEPT + 1 + i));
    // The first live think: everything the replay printed and every event it made had arrived,
    // in order (its own `before` line and `think-start` last).
    const first = seen[0]!;
    expect(first.output).toBe(uninterrupted.output.slice(0, uninterrupted.output.indexOf(`before ${KEPT + 1}\n`) + `before ${KEPT + 1}\n`.length));
    const all = shown(allEvents);
    expect(first.events).toEqual(all.slice(0, all.indexOf(`think-start ${KEPT + 1}`) + 1));
    expect(first.events.filter((e) => e.startsWith("think-end"))).toHaveLength(KEPT);
    // Each live think: the one before it is in the cassette file already (a kill now would keep it).
    for (const s of seen) expect([s.n, s.journaled]).toEqual([s.n, s.n - 1]);
    // The whole run: the same output, the same events in the same order, the same cassette.
    expect(result.output).toBe(uninterrupted.output);
    expect(shown(events)).toEqual(all);
    expect(all.filter((e) => e.startsWith("log"))).toContain("log logged 200\n");
    expect(readFileSync(resumed, "utf8")).toBe(readFileSync(full, "utf8"));
  });

  it("sends what it holds while the program computes for long after the replay, printing nothing", async () => {
    // The program waits in a loop for a file the test writes once the replay's output has arrived:
    // output held until the next think would never arrive, and the run would time out. (The
    // loop's `loop-item` events make the outbox check its time: outbox.ts.)
    const loop = 'for i in 1...3 {\n  print("replayed $i")\n  var r = think { count $i }\n}\nwhile !exists("go") { }\nprint("then ${think { count 4 }}")\n';
    const dir = mkdtempSync(join(tmpdir(), "pw-batches-"));
    const thinks = [1, 2, 3].map((n) => ({ think: n, prompt: `count ${n}`, turns: [{ do: [], answer: `ok ${n}` }] }));
    writeFileSync(join(dir, "k.json"), formatCassette({ version: 1, program: "p.pw", thinks }));
    const output: string[] = [];
    const result = await runWithAgent({
      source: loop,
      fileName: "p.pw",
      cwd: dir,
      writeOutput: false,
      timeoutMs: 30_000,
      onOutput: (text) => {
        output.push(text);
        if (output.join("").includes("replayed 3\n")) writeFileSync(join(dir, "go"), "");
      },
      record: { path: join(dir, "k.json"), resume: true },
      agent: counting(),
    });
    expect([result.ok, result.output]).toEqual([true, "replayed 1\nreplayed 2\nreplayed 3\nthen ok 4\n"]);
    expect(result.recording).toMatchObject({ replayed: 3, live: 1 });
  });
});
