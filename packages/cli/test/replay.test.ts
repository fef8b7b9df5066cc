// `--record` / `--replay` cassettes and `patchwork test`, through the real binary: recorded
// over ACP with the scripted test agent, replayed with no agent at all.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCassette } from "@patchwork/interpreter";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
const agentWith = (script: string) => `"${process.execPath}" "${testAgent}" "${script}"`;

const PROGRAM = `var n = 0
var kind = think {
  Categorize the document "invoice 42". do(0)=RECEIPT
  do { n = n + 1; $ echo "receipt block ran" }
}
var total = think { What is the total of the $kind? }
print(kind, total, n)
`;
const SCRIPT = {
  prompts: [
    { match: "Categorize the document", steps: [{ do: 0 }, { reply: "RECEIPT" }] },
    { match: "What is the total", steps: [{ reply: "542" }] },
  ],
};
const OUTPUT = "receipt block ran\nRECEIPT 542 1\n";

describe("record and replay", { timeout: 300_000 }, () => {
  it("records over ACP, replays with no agent (do blocks run again), and fails a changed prompt with a diff", () => {
    const dir = tempFiles({ "p.pw": PROGRAM, "script.json": JSON.stringify(SCRIPT) });
    const agent = agentWith(join(dir, "script.json"));
    const rec = patchwork(["run", "p.pw", "--agent", agent, "--record", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([rec.status, rec.stdout, rec.stderr]).toEqual([0, OUTPUT, ""]);
    const cassette = parseCassette(readFileSync(join(dir, "c.json"), "utf8"), "c.json");
    expect(cassette.thinks.map((t) => [t.think, t.at, t.turns[0]!.do.map((d) => d.block), t.turns[0]!.answer])).toEqual([
      [1, "p.pw:2:12", [0], "RECEIPT"],
      [2, "p.pw:6:13", [], "542"],
    ]);

    const replay = patchwork(["run", "p.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([replay.status, replay.stdout, replay.stderr]).toEqual([0, OUTPUT, ""]);

    writeFileSync(join(dir, "p.pw"), PROGRAM.replace("invoice 42", "invoice 43"));
    const changed = patchwork(["run", "p.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect(changed.status).toBe(1);
    expect(changed.stdout).toBe("");
    expect(changed.stderr).toContain(
      'p.pw:2:12: error[PW3032]: the prompt of think 1 does not match the cassette c.json (- recorded, + now):\n' +
        '- Categorize the document "invoice 42". do(0)=RECEIPT\n+ Categorize the document "invoice 43". do(0)=RECEIPT\n',
    );
    expect(changed.stderr).not.toMatch(/\n\s+at /);

    // --replay-missing=agent: the changed think goes to the live agent, the cassette is updated.
    const mixed = patchwork(["run", "p.pw", "--replay", "c.json", "--replay-missing=agent", "--agent", agent], { cwd: dir, timeoutMs: 120_000 });
    expect([mixed.status, mixed.stdout]).toEqual([0, OUTPUT]);
    const updated = parseCassette(readFileSync(join(dir, "c.json"), "utf8"), "c.json");
    expect(updated.thinks.map((t) => t.prompt.split("\n")[0])).toEqual([
      'Categorize the document "invoice 43". do(0)=RECEIPT',
      "What is the total of the RECEIPT?",
    ]);
    expect(patchwork(["run", "p.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 120_000 }).stdout).toBe(OUTPUT);
  });

  it("a bad cassette or a bad combination of options is a clear error", () => {
    const dir = tempFiles({
      "p.pw": PROGRAM,
      "bad.json": '{"patchwork": "cassette", "version": 1, "thinks": [',
      // What a recording killed before its first answer leaves: read as a cassette with no entries.
      "cut.json": '{\n  "patchwork": "cassette",\n  "version": 1,\n  "thinks": [\n    {\n      "think": 1,',
    });
    const bad = patchwork(["run", "p.pw", "--replay", "bad.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([bad.status, bad.stderr]).toEqual([1, "patchwork: error: bad.json:1:52: not valid JSON: the file ends too early\n"]);
    const cut = patchwork(["run", "p.pw", "--replay", "cut.json"], { cwd: dir, timeoutMs: 120_000 });
    expect(cut.status).toBe(1);
    expect(cut.stderr).toMatch(
      /^patchwork: warning: cut\.json ends inside an entry \(a recording killed while writing it\): kept the 0 whole entries before it\np\.pw:2:12: error\[PW3033\]/,
    );
    expect(patchwork(["run", "p.pw", "--record", "c.json", "--no-agent"], { cwd: dir, timeoutMs: 120_000 })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^patchwork: --record needs an agent to record/),
    });
    expect(patchwork(["run", "p.pw", "--resume", "c.json"], { cwd: dir, timeoutMs: 120_000 })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^patchwork: --resume needs an agent to ask the thinks the cassette lacks/),
    });
    expect(patchwork(["run", "p.pw", "--resume", "c.json", "--record", "d.json", "--agent", "x"], { cwd: dir, timeoutMs: 120_000 })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^patchwork: --resume FILE replays and records FILE: it goes without --replay and --record/),
    });
    expect(patchwork(["run", "p.pw", "--replay-missing=agent"], { cwd: dir, timeoutMs: 120_000 })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^patchwork: --replay-missing goes with --replay/),
    });
  });
});

describe("patchwork test", { timeout: 300_000 }, () => {
  it("passes the project's example tests (their cassettes and snapshots are current)", () => {
    const r = patchwork(["test", "examples/tests"], { timeoutMs: 120_000 });
    expect(r.stdout).toBe(
      "PASS examples/tests/categorize.test.pw\nPASS examples/tests/nested.test.pw\nPASS examples/tests/typed.test.pw\n3 passed, 0 failed\n",
    );
    expect(r.status).toBe(0);
  });

  it("re-records the cassettes with --update --agent exactly as committed, and reports a changed output with a diff", () => {
    const dir = mkdtempSync(join(tmpdir(), "pw-test-cmd-"));
    cpSync(join(repoRoot, "examples", "tests"), dir, { recursive: true });
    for (const name of ["categorize", "nested", "typed"]) {
      rmSync(join(dir, `${name}.cassette.json`));
      rmSync(join(dir, `${name}.snap`));
    }
    const missing = patchwork(["test", "."], { cwd: dir, timeoutMs: 120_000 });
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain("FAIL categorize.test.pw: no snapshot categorize.snap (run patchwork test --update to write it)");
    expect(missing.stdout.endsWith("0 passed, 3 failed\n")).toBe(true);

    const agent = agentWith(join(repoRoot, "examples", "agents", "tests.json"));
    const update = patchwork(["test", ".", "--update", "--agent", agent], { cwd: dir, timeoutMs: 120_000 });
    expect(update.stdout).toContain("PASS nested.test.pw (snapshot created)");
    expect(update.stdout.endsWith("3 passed, 0 failed\n")).toBe(true);
    for (const file of ["categorize.cassette.json", "nested.cassette.json", "typed.cassette.json", "typed.snap", "categorize.snap"])
      expect(readFileSync(join(dir, file), "utf8")).toBe(readFileSync(join(repoRoot, "examples", "tests", file), "utf8"));

    writeFileSync(join(dir, "typed.test.pw"), readFileSync(join(dir, "typed.test.pw"), "utf8").replace("> 0.5", "> 0.95"));
    const failing = patchwork(["test", "."], { cwd: dir, timeoutMs: 120_000 });
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain("FAIL typed.test.pw: the output differs from typed.snap (- snapshot, + now):\n    - RECEIPT true\n    + RECEIPT false\n");
    expect(failing.stdout.endsWith("2 passed, 1 failed\n")).toBe(true);
  });
});
