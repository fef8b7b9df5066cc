// An evaluator thread stopped from outside is never stopped inside a `write()` (write-lock.ts,
// issue 21 §4): real threads of the built runtime writing an 8 MB file in a loop, stopped by a
// failing sibling (runWithAgent's pool) and by a session reset (EvaluatorSession, the REPL's
// and the editor's thread); no `.NAME.pw-tmp-…` file is left and the file is whole.
// (The same through the CLI with --timeout and signals: packages/cli/test/cancelled-write.test.ts.)
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvaluatorSession, runWithAgent } from "../dist/index.js";

const SIZE = 8_000_000;
const loop = `var big = "x".repeat(${SIZE})\nfor i in 1...100000 { write("out.txt", big) }\n`;

function leftovers(dir: string) {
  const out = join(dir, "out.txt");
  return { temps: readdirSync(dir).filter((n) => n.includes(".pw-tmp-")), whole: !existsSync(out) || statSync(out).size === SIZE };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("a thread stopped in the middle of write()", () => {
  it("a sibling worker fails: the writer's thread stops outside its write", async () => {
    for (const delay of [0.2, 0.4]) {
      const dir = mkdtempSync(join(tmpdir(), "pw-write-lock-"));
      const source = `worker writer() {\n${loop}return 1\n}\nworker thrower() {\n$ sleep ${delay}\nthrow "stop"\n}\nself.delegate([writer(), thrower()]).await\n`;
      const r = await runWithAgent({ source, fileName: join(dir, "p.pw"), cwd: dir, agent: null, writeOutput: false });
      expect(r.ok).toBe(false);
      expect(r.diagnostics[0]?.message).toContain("stop");
      expect(existsSync(join(dir, "out.txt"))).toBe(true);
      expect(leftovers(dir)).toEqual({ temps: [], whole: true });
    }
  }, 120_000);

  it("a session reset while a program writes: the thread stops outside its write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pw-write-lock-"));
    const session = new EvaluatorSession({ agent: { think: () => Promise.reject(new Error("no agent")) }, cwd: dir, cancelGraceMs: 50 });
    try {
      const running = session.run(loop, join(dir, "p.pw"));
      await until(() => existsSync(join(dir, "out.txt")) && leftovers(dir).temps.length > 0, "the second write");
      await session.reset();
      const result = await running;
      expect(result.ok).toBe(false);
      expect(leftovers(dir)).toEqual({ temps: [], whole: true });
    } finally {
      await session.close();
    }
  }, 120_000);
});
