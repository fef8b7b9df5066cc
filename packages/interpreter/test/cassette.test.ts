// Record a run's thinks from its event stream, replay them with the cassette agent: the `do`
// blocks really run again, the answers come from the cassette, a changed prompt is a
// positioned error with a diff.
import { describe, expect, it } from "vitest";
import {
  CassetteAgent,
  CassetteError,
  CassetteRecorder,
  ScriptedAgent,
  formatCassette,
  parseCassette,
  type Cassette,
} from "../src/index.js";
import { runSource } from "./helpers.js";

const PROGRAM = `
var n = 0
var kind = think {
  Classify the document "invoice 42".
  do { n = n + 1; print("step", n) }
  do { var inner = think { Inner question } ; print("inner said", inner) }
}
print("kind:", kind)
var info: {total: number} = think { Give the total of ${"$"}{kind}. }
print("total:", info.total)
`;

function record(): Cassette {
  const agent = new ScriptedAgent([
    [{ do: 0 }, { do: 1 }, { do: 0 }, { reply: "Preamble.\n```text\nINVOICE\n```" }],
    [{ reply: "yes" }],
    [{ reply: "not json" }, { reply: '```json\n{"total": 42}\n```' }],
  ]);
  const recorder = new CassetteRecorder("test.pw");
  const r = runSource(PROGRAM, { agent });
  expect(r.error).toBeNull();
  for (const e of r.events) recorder.handle(e);
  expect(r.output).toBe("step 1\ninner said yes\nstep 2\nkind: INVOICE\ntotal: 42\n");
  return recorder.cassette();
}

describe("cassettes", () => {
  it("record the prompt, the do calls, the answer and the repair turn of each think, in start order", () => {
    const c = record();
    expect(c.thinks.map((t) => t.think)).toEqual([1, 2, 3]);
    expect(c.thinks[0]!.prompt).toContain('Classify the document "invoice 42".');
    expect(c.thinks[0]!.turns[0]!.do).toEqual([
      { block: 0, result: "step 1\n" },
      { block: 1, result: "inner said yes\n" },
      { block: 0, result: "step 2\n" },
    ]);
    expect(c.thinks[0]!.turns[0]!.answer).toBe("Preamble.\n```text\nINVOICE\n```");
    expect(c.thinks[1]!.prompt).toBe("Inner question");
    expect(c.thinks[2]!.turns).toHaveLength(2);
    expect(c.thinks[2]!.turns[0]!.answer).toBe("not json");
    expect(c.thinks[2]!.turns[1]!.repair).toMatch(/could not be used/);
    expect(c.thinks[2]!.at).toBe("test.pw:9:29");
  });

  it("round-trips through its text format, multi-line text stored as lines", () => {
    const c = record();
    const text = formatCassette(c);
    expect(text).toContain('"answer": [\n            "Preamble.",');
    expect(parseCassette(text, "c.json")).toEqual(parseCassette(formatCassette(parseCassette(text, "c.json")), "c.json"));
    expect(parseCassette(text, "c.json").thinks[0]!.turns[0]!.answer).toBe(c.thinks[0]!.turns[0]!.answer);
  });

  it("replays with no agent: the do blocks run again, the answers are the recorded ones", () => {
    const c = parseCassette(formatCassette(record()), "c.json");
    const agent = new CassetteAgent(c);
    const r = runSource(PROGRAM, { agent });
    expect(r.error).toBeNull();
    expect(r.output).toBe("step 1\ninner said yes\nstep 2\nkind: INVOICE\ntotal: 42\n");
    expect(agent.replayed).toBe(3);
  });

  it("a changed prompt is an error at the think, with a diff of the prompt", () => {
    const c = record();
    const r = runSource(PROGRAM.replace("invoice 42", "invoice 43"), { agent: new CassetteAgent(c, { fileName: "c.json" }) });
    expect(r.error).toMatch(/^PW3032 at 3:12: the prompt of think 1 does not match the cassette c\.json/);
    expect(r.error).toContain('- Classify the document "invoice 42".\n+ Classify the document "invoice 43".');
  });

  it("a think the cassette lacks is PW3033; a fallback agent answers it instead", () => {
    const c = record();
    c.thinks.pop();
    const r = runSource(PROGRAM, { agent: new CassetteAgent(c) });
    expect(r.error).toMatch(/^PW3033 at 9:29: the cassette has no recording for think 3/);
    const fallback = new ScriptedAgent([[{ reply: '{"total": 7}' }]]);
    const agent = new CassetteAgent(c, { fallback });
    const again = runSource(PROGRAM, { agent });
    expect(again.error).toBeNull();
    expect(again.output).toContain("total: 7");
    expect([agent.replayed, agent.missed]).toEqual([2, 1]);
  });

  it("matches a reordered run by prompt", () => {
    const source = 'var a = think { first }\nvar b = think { second }\nprint(a, b)';
    const c: Cassette = {
      version: 1,
      thinks: [
        { think: 1, prompt: "second", turns: [{ do: [], answer: "2" }] },
        { think: 2, prompt: "first", turns: [{ do: [], answer: "1" }] },
      ],
    };
    expect(runSource(source, { agent: new CassetteAgent(c) }).output).toBe("1 2\n");
  });

  it("bad cassettes are errors naming the line or the entry", () => {
    const good = formatCassette(record());
    const truncated = good.slice(0, good.length - 40);
    expect(() => parseCassette(truncated, "c.json")).toThrow(CassetteError);
    expect(() => parseCassette(truncated, "c.json")).toThrow(/^c\.json:\d+:\d+: not valid JSON/);
    const edited = JSON.parse(good);
    edited.thinks[1].turns[0].do = [{ block: -1 }];
    expect(() => parseCassette(JSON.stringify(edited), "c.json")).toThrow(/^c\.json: entry 2 of "thinks", field turns\.0\.do\.0\.block: /);
    edited.thinks[1].turns[0].do = [];
    edited.thinks[1].think = 1;
    expect(() => parseCassette(JSON.stringify(edited), "c.json")).toThrow(/entry 2 of "thinks": think 1 is recorded twice/);
    expect(() => parseCassette('{"version": 1}', "c.json")).toThrow(/^c\.json: field patchwork: /);
  });
});
