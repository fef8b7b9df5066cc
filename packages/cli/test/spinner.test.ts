// The spinner, on a real pseudo-terminal (util-linux `script`): it says what is running and
// never mixes with the program's output.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
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
