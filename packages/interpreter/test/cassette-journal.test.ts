// The cassette journal (docs/replay.md "Resuming a run"): each entry is in the file when its think
// ends, the file is always the cassette format, a cut file is read up to its last whole entry;
// and replay errors are errors of the run wherever they happen (docs/replay.md "Replaying").
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CassetteAgent,
  CassetteError,
  CassetteJournal,
  CassetteRecorder,
  JournaledRecording,
  ScriptedAgent,
  formatCassette,
  parseCassette,
  readCassetteText,
  type Cassette,
  type CassetteThink,
} from "../src/index.js";
import { runSource, tempDir as emptyDir } from "./helpers.js";

function tempDir(files: Record<string, string> = {}): string {
  const dir = emptyDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const NESTED = `
var doc = read("data.txt")
var r = think {
  Summarize. do(0)
  do {
    var inner = think { Inner about $doc }
    print("inner said $inner")
  }
}
print(r)
`;

function entry(think: number, prompt: string, answer: string, worker?: string): CassetteThink {
  return { think, ...(worker ? { worker } : {}), at: "p.pw:1:1", prompt, turns: [{ do: [{ block: 0, result: "a\nb\n" }], answer }] };
}

function cassetteOf(thinks: CassetteThink[]): Cassette {
  return { version: 1, program: "p.pw", thinks };
}

function recordNested(dir: string): Cassette {
  const agent = new ScriptedAgent([[{ do: 0 }, { reply: "outer done" }], [{ reply: "inner ok" }]]);
  const recorder = new CassetteRecorder("test.pw");
  const r = runSource(NESTED, { agent, cwd: dir });
  expect(r.error).toBeNull();
  for (const e of r.events) recorder.handle(e);
  return recorder.cassette();
}

describe("the cassette journal", () => {
  it("has every entry in the file when append returns, as formatCassette writes it", () => {
    const path = join(tempDir(), "c.json");
    const journal = new CassetteJournal(path, "p.pw");
    expect(readFileSync(path, "utf8")).toBe(formatCassette(cassetteOf([])));
    const thinks = [entry(1, "one", "1"), entry(2, "two\nlines", "2\n"), entry(1, "w", "3", "part#1")];
    for (let i = 0; i < thinks.length; i++) {
      expect(journal.append(thinks[i]!)).toBe("new");
      expect(readFileSync(path, "utf8")).toBe(formatCassette(cassetteOf(thinks.slice(0, i + 1))));
    }
    expect(journal.append(entry(2, "two\nlines", "2\n"))).toBe("kept");
    expect(journal.append(entry(2, "two\nlines", "changed"))).toBe("replaced");
    expect(parseCassette(readFileSync(path, "utf8"), "c.json").thinks[1]!.turns[0]!.answer).toBe("changed");
    journal.close();
    expect(parseCassette(readFileSync(path, "utf8"), "c.json").thinks).toHaveLength(3);
  });

  it("resuming a whole file appends to it as it is; a file that changed meanwhile is rewritten", () => {
    const path = join(tempDir(), "c.json");
    const kept = [entry(1, "one", "1"), entry(2, "two", "2")];
    const text = formatCassette(cassetteOf(kept));
    writeFileSync(path, text);
    const journal = new CassetteJournal(path, "p.pw", kept, text);
    expect(journal.append(entry(3, "three", "3"))).toBe("new");
    expect(readFileSync(path, "utf8")).toBe(formatCassette(cassetteOf([...kept, entry(3, "three", "3")])));
    journal.close();
    // The text given is not the file's any more (another size): the file is written afresh from `kept`.
    writeFileSync(path, text + "\n\n");
    const again = new CassetteJournal(path, "p.pw", kept, text);
    expect(readFileSync(path, "utf8")).toBe(text);
    again.close();
  });

  it("a file cut at any byte is read up to its last whole entry, and says it was cut", () => {
    const thinks = [entry(1, "one", "1"), entry(2, "two\n  }\n    }", "2"), entry(3, "three", "3")];
    const full = formatCassette(cassetteOf(thinks));
    // Where each entry's text ends in the file: a prefix holds the entries that end inside it.
    const ends = thinks.map((_, i) => formatCassette(cassetteOf(thinks.slice(0, i + 1))).length - "\n  ]\n}\n".length);
    const headEnd = full.indexOf("[");
    for (let cut = headEnd + 1; cut < full.length; cut++) {
      const read = readCassetteText(full.slice(0, cut), "c.json");
      const whole = ends.filter((end) => end <= cut).length;
      expect(read.cassette.thinks.map((t) => t.think), `cut at ${cut}`).toEqual(thinks.slice(0, whole).map((t) => t.think));
      expect(read.cut).toBe(cut < full.length - 1 || whole < thinks.length);
    }
    expect(readCassetteText(full, "c.json")).toEqual({ cassette: parseCassette(full, "c.json"), cut: false });
    // Not a cut cassette: the JSON error as before.
    expect(() => readCassetteText('{"patchwork": "cassette", "thinks": [', "c.json")).toThrow(CassetteError);
  });

  it("a recording that resumes keeps the entries it replays, appends the live ones, and ends in stable order", () => {
    const path = join(tempDir(), "c.json");
    const kept = cassetteOf([entry(1, "one", "1"), entry(1, "w1", "x", "part#2")]);
    const recording = new JournaledRecording({ path, program: "p.pw", replayed: kept, resume: true });
    expect(parseCassette(readFileSync(path, "utf8"), "c.json").thinks).toHaveLength(2);
    const at = { start: { offset: 0, line: 1, column: 1 }, end: { offset: 0, line: 1, column: 1 } };
    const think = (id: number, prompt: string, reply: string, worker?: string) => {
      recording.handle({ type: "think-start", id, kind: "think", prompt, fileName: "p.pw", span: at, typeText: null, ...(worker ? { worker } : {}) });
      recording.handle({ type: "do-end", thinkId: id, index: 0, ok: true, text: "other text now\n" });
      recording.handle({ type: "think-end", id, ok: true, reply, value: reply });
    };
    think(1, "one", "1");
    think(2, "two", "2");
    think(3, "w10", "y", "part#10");
    think(4, "w1", "x", "part#2");
    expect(readCassetteText(readFileSync(path, "utf8"), "c.json").cassette.thinks.map((t) => t.prompt)).toEqual(["one", "w1", "two", "w10"]);
    // A think that failed (an agent's error, caught by settle() or try) is not kept, and counted.
    recording.handle({ type: "think-start", id: 5, kind: "think", prompt: "w3", fileName: "p.pw", span: at, typeText: null, worker: "part#3" });
    recording.handle({ type: "think-end", id: 5, ok: false, error: "the agent refused" });
    expect(recording.finish({ complete: true })).toEqual({ replayed: 2, live: 2, entries: 4, failed: 1 });
    const final = parseCassette(readFileSync(path, "utf8"), "c.json");
    expect(final.thinks.map((t) => t.prompt)).toEqual(["one", "two", "w1", "w10"]);
    expect(final.thinks[0]!.turns[0]!.do[0]!.result).toBe("other text now\n");
  });
});

describe("replay errors are errors of the run", () => {
  it("a nested think whose prompt changed fails the run inside a do block and a try, at the inner think, with the diff", () => {
    const dir = tempDir({ "data.txt": "v1" });
    const c = recordNested(dir);
    expect(runSource(NESTED, { agent: new CassetteAgent(c), cwd: dir }).output).toBe("inner said inner ok\nouter done\n");
    const drifted = tempDir({ "data.txt": "v2" });
    const r = runSource(NESTED, { agent: new CassetteAgent(c, { fileName: "c.json" }), cwd: drifted });
    expect(r.error).toMatch(/^PW3032 at 6:17: the prompt of think 2 does not match the cassette c\.json/);
    expect(r.error).toContain("- Inner about v1\n+ Inner about v2");
    expect(r.output).toBe("");
    const guarded = runSource(`try {\n${NESTED}\n} catch e { print("caught", e) }`, { agent: new CassetteAgent(c), cwd: drifted });
    expect(guarded.error).toMatch(/^PW3032 at 7:17:/);
    expect(guarded.output).not.toContain("caught");
  });

  it("a think the cassette lacks inside a do block is PW3033 for the run", () => {
    const dir = tempDir({ "data.txt": "v1" });
    const c = recordNested(dir);
    c.thinks = c.thinks.filter((t) => t.think === 1);
    expect(runSource(NESTED, { agent: new CassetteAgent(c), cwd: dir }).error).toMatch(/^PW3033 at 6:17:/);
  });

  it("a recorded do call of a block the think does not have is PW3034", () => {
    const dir = tempDir({ "data.txt": "v1" });
    const c = recordNested(dir);
    c.thinks[0]!.turns[0]!.do.push({ block: 3, result: "x" });
    expect(runSource(NESTED, { agent: new CassetteAgent(c, { fileName: "c.json" }), cwd: dir }).error).toMatch(
      /^PW3034 at 3:9: the cassette c\.json runs do block 3 of think 1, which has blocks 0 to 0/,
    );
    // Recorded as failed (the model called a wrong number, then went on): replayed as it was.
    c.thinks[0]!.turns[0]!.do.pop();
    c.thinks[0]!.turns[0]!.do.unshift({ block: 3, error: "there is no do block 3: the only valid number is 0" });
    expect(runSource(NESTED, { agent: new CassetteAgent(c), cwd: dir }).output).toBe("inner said inner ok\nouter done\n");
  });

  it("a replayed do block that fails now fails its think as live (PW4017), which the program may catch", () => {
    const source = `var f = read("flag.txt")\nvar r = think {\n  Check. do(0)\n  do { if f == "bad" { throw "broken" } ; print("fine") }\n}\nprint(r)\n`;
    const agent = new ScriptedAgent([[{ do: 0 }, { reply: "checked" }]]);
    const recorder = new CassetteRecorder("test.pw");
    const ok = runSource(source, { agent, cwd: tempDir({ "flag.txt": "good" }) });
    for (const e of ok.events) recorder.handle(e);
    const c = recorder.cassette();
    const r = runSource(source, { agent: new CassetteAgent(c), cwd: tempDir({ "flag.txt": "bad" }) });
    expect(r.error).toMatch(/^PW4017 at 2:9: do block 0 failed: test\.pw:4:/);
    const caught = runSource(`try {\n${source}} catch e { print("caught") }\n`, { agent: new CassetteAgent(c), cwd: tempDir({ "flag.txt": "bad" }) });
    expect([caught.error, caught.output]).toEqual([null, "caught\n"]);
  });
});

describe("the hand check of a cassette's shape", () => {
  it("never accepts what the zod schema rejects (random edits of a valid cassette)", async () => {
    const fc = (await import("fast-check")).default;
    const { plainlyValid, schemaAccepts } = await import("../src/cassette/format.js");
    const base = JSON.parse(
      formatCassette(
        cassetteOf([
          { think: 1, at: "p.pw:1:1", kind: "ask", prompt: "a\nb", turns: [{ do: [{ block: 0, result: "x" }, { block: 1, error: "e" }], answer: "y" }, { repair: "r", do: [], answer: "z" }] },
          entry(2, "w", "v", "part#1"),
        ]),
      ),
    );
    expect(plainlyValid(base)).toBe(true);
    const values = [null, -1, 0, 1, 1.5, "x", "", [], ["a"], [1], {}, true, "cassette", "think"];
    const pathsOf = (v: unknown, at: (string | number)[] = []): (string | number)[][] =>
      typeof v === "object" && v !== null ? [at, ...Object.entries(v).flatMap(([k, x]) => pathsOf(x, [...at, Array.isArray(v) ? Number(k) : k]))] : [at];
    const paths = pathsOf(base).filter((p) => p.length > 0);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(paths.length - 1), fc.nat(values.length), fc.boolean()), { minLength: 1, maxLength: 3 }), (edits) => {
        const c = structuredClone(base);
        for (const [p, v, extra] of edits) {
          const path = paths[p]!;
          let parent = c;
          for (const k of path.slice(0, -1)) parent = parent?.[k];
          if (typeof parent !== "object" || parent === null) continue;
          const key = path[path.length - 1]!;
          if (extra && !Array.isArray(parent)) parent.extra = values[v % values.length];
          else if (v === values.length) delete parent[key];
          else parent[key] = values[v];
        }
        if (plainlyValid(c)) expect(schemaAccepts(c)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
