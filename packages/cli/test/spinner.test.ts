// The spinner, on a real pseudo-terminal (util-linux `script`): it says what is running and
// never mixes with the program's output.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { patchworkBin, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

/** What a terminal shows: per line, the text after the last carriage return + clear-line. */
function screen(raw: string): string[] {
  return raw
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line) => line.split("\r\x1b[K").pop()!.replace(/\r/g, ""))
    .filter((line) => line !== "");
}

const hasScript = existsSync("/usr/bin/script");
const spinnerTitle = "shows think at FILE:LINE, nesting and do(n), then clears before output";
it.runIf(hasScript)(hasScript ? spinnerTitle : `${spinnerTitle} (skipped: needs /usr/bin/script, util-linux, for a terminal)`, () => {
  const dir = tempFiles({
    "s.json": JSON.stringify({
      prompts: [
        { match: "Outer", steps: [{ sleep: 600 }, { do: 0 }, { reply: "outer done" }] },
        { match: "Inner", steps: [{ sleep: 600 }, { reply: "inner done" }] },
      ],
    }),
    "p.pw": 'print("before")\nvar r = think {\n    Outer question.\n    do {\n        print(think { Inner question. })\n    }\n}\nprint(r)\n',
  });
  const command = `"${process.execPath}" "${patchworkBin}" run p.pw --agent '"${process.execPath}" "${testAgent}" s.json'`;
  const r = spawnSync("/usr/bin/script", ["-qfec", command, "/dev/null"], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("think at p.pw:2");
  expect(r.stdout).toContain("think at p.pw:5 (depth 2) · do(0)");
  // The run's summary (what it asked and spent) is the last line.
  expect(screen(r.stdout)).toEqual(["before", "inner done", "outer done", expect.stringMatching(/^patchwork: 2 thinks asked, 0 replayed, /)]);
});

const logTitle = "log(…) lines and a command's stderr show once each, in order, beside the spinner";
it.runIf(hasScript)(hasScript ? logTitle : `${logTitle} (skipped: needs /usr/bin/script, util-linux, for a terminal)`, () => {
  const dir = tempFiles({
    "s.json": JSON.stringify({ prompts: [{ match: "Question", steps: [{ reply: "answer" }] }] }),
    "p.pw": 'print("one")\nlog("logged")\n$ echo warned >&2\nvar r = think { Question. }\nlog("after ${r}")\nprint("two")\n',
  });
  const command = `"${process.execPath}" "${patchworkBin}" run p.pw --agent '"${process.execPath}" "${testAgent}" s.json'`;
  const r = spawnSync("/usr/bin/script", ["-qfec", command, "/dev/null"], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  expect(r.status).toBe(0);
  expect(screen(r.stdout)).toEqual(["one", "logged", "warned", "after answer", "two", expect.stringMatching(/^patchwork: 1 think asked, /)]);
});

const lineTitle = "the progress line: a loop's items done of all, thinks, elapsed, ETA and cost; updated, then cleared; never on stdout or a non-terminal stderr";
it.runIf(hasScript)(hasScript ? lineTitle : `${lineTitle} (skipped: needs /usr/bin/script, util-linux, for a terminal)`, () => {
  const usage = { update: { sessionUpdate: "usage_update", used: 10, size: 100, cost: { amount: 0.25, currency: "USD" } } };
  const dir = tempFiles({
    "s.json": JSON.stringify({ prompts: [{ match: "Summarize", steps: [{ sleep: 300 }, usage, { reply: "ok" }] }] }),
    "p.pw": 'for doc in ["a", "b", "c", "d", "e"] {\n  var s = think { Summarize ${doc}. }\n  print(s)\n}\n',
  });
  const run = `"${process.execPath}" "${patchworkBin}" run p.pw --agent '"${process.execPath}" "${testAgent}" s.json'`;
  // stderr on the terminal, stdout to a file.
  const r = spawnSync("/usr/bin/script", ["-qfec", `${run} > out.txt`, "/dev/null"], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  expect(r.status).toBe(0);
  const lines = r.stdout.split("\r\x1b[K").filter((l) => l !== "");
  const counts = new Set(lines.map((l) => /(\d)\/5 doc in p\.pw:1/.exec(l)?.[1]).filter((c) => c !== undefined));
  expect([...counts].length).toBeGreaterThanOrEqual(3);
  expect(lines.some((l) => / · 1 think running · \d+s · ETA \d+s · 0\.\d{4} USD/.test(l))).toBe(true);
  // Cleared at the end: the terminal shows nothing of it, only the run's cost summary.
  const summary = expect.stringMatching(/^patchwork: 5 thinks asked, .* · cost 1\.25 USD · /);
  expect(screen(r.stdout)).toEqual([summary]);
  expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("ok\nok\nok\nok\nok\n");
  // --quiet: no progress line at all (the summary stays: what a run cost is always said).
  const quiet = spawnSync("/usr/bin/script", ["-qfec", `${run} --quiet > out.txt`, "/dev/null"], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  expect(quiet.status).toBe(0);
  expect(quiet.stdout).not.toContain("\r\x1b[K");
  expect(screen(quiet.stdout)).toEqual([summary]);
  // Not a terminal: nothing on stderr.
  const piped = spawnSync("/bin/sh", ["-c", run], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  expect(piped.status).toBe(0);
  expect(piped.stderr).toMatch(/^patchwork: 5 thinks asked, [^\n]*\n$/);
  expect(piped.stdout).toBe("ok\nok\nok\nok\nok\n");
});

const retryTitle = "says when a think waits to be asked again: retrying think at FILE:LINE in N s (k/n): reason";
it.runIf(hasScript)(hasScript ? retryTitle : `${retryTitle} (skipped: needs /usr/bin/script, util-linux, for a terminal)`, () => {
  const dir = tempFiles({
    "s.json": JSON.stringify({ outage: { prompts: 1, error: "API Error: 529 Overloaded" }, prompts: [{ match: "Question", steps: [{ reply: "answer" }] }] }),
    "p.pw": 'print("before")\nvar r = think { Question. }\nprint(r)\n',
  });
  const command = `"${process.execPath}" "${patchworkBin}" run p.pw --agent '"${process.execPath}" "${testAgent}" s.json'`;
  const r = spawnSync("/usr/bin/script", ["-qfec", command, "/dev/null"], { cwd: dir, encoding: "utf8", timeout: 30_000, env: { ...process.env, PATCHWORK_RETRY_DELAY_MS: "1500" } });
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/retrying think at p\.pw:2 in [12] s \(1\/36\): 529 overloaded/);
  const lines = screen(r.stdout);
  expect(lines.slice(0, 2)).toEqual(["before", "answer"]);
  expect(lines.slice(2)).toEqual([expect.stringMatching(/^patchwork: 1 think asked, 0 replayed, 1 retried, 0 failed/)]);
});
