// A worker stopped in the middle of `write()` (a sibling threw, --timeout, Ctrl-C) leaves no
// `.NAME.pw-tmp-…` file behind, and the file it wrote is whole: the old one or the new one
// (issue 21 §4). Real `patchwork` processes, real evaluator threads: the writer writes a large
// file over and over, so that most of its time is spent between creating its temporary file
// and renaming it, where an unguarded stop left the temporary file behind most of the time.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, patchworkBin, tempFiles } from "./helpers.js";

const SIZE = 8_000_000;

const writer = `
worker writer(path) {
    var big = "x".repeat(${SIZE})
    for i in 1...100000 { write(path, big) }
    return 1
}
`;

/** What the run left in `dir`: temporary files, and whether out.txt is whole. */
function leftovers(dir: string): { temps: string[]; whole: boolean } {
  const temps = readdirSync(dir).filter((name) => name.includes(".pw-tmp-"));
  const out = join(dir, "out.txt");
  return { temps, whole: !existsSync(out) || statSync(out).size === SIZE };
}

describe("a worker stopped in the middle of write()", () => {
  it.each([0.2, 0.35, 0.5])("a sibling throws after %s s: no temporary file, the file whole", (delay) => {
    const source = `${writer}
worker thrower() {
    $ sleep ${delay}
    throw "stop"
}
self.delegate([writer("out.txt"), thrower()]).await
`;
    const dir = tempFiles({ "p.pw": source });
    const r = patchwork(["run", "--no-agent", "p.pw"], { cwd: dir, timeoutMs: 60_000 });
    expect(r.stderr).toContain("stop");
    expect(r.status).toBe(1);
    expect(existsSync(join(dir, "out.txt"))).toBe(true);
    expect(leftovers(dir)).toEqual({ temps: [], whole: true });
  });

  it("--timeout: no temporary file, the file whole", () => {
    const dir = tempFiles({ "p.pw": `${writer}\nself.delegate([writer("out.txt")]).await\n` });
    const r = patchwork(["run", "--no-agent", "--timeout", "1.5", "p.pw"], { cwd: dir, timeoutMs: 60_000 });
    expect(r.stderr).toMatch(/timed out/);
    expect(r.status).toBe(1);
    expect(existsSync(join(dir, "out.txt"))).toBe(true);
    expect(leftovers(dir)).toEqual({ temps: [], whole: true });
  });

  it.each(["SIGINT", "SIGTERM"] as const)("%s while it writes: no temporary file, the file whole", async (signal) => {
    const dir = tempFiles({ "p.pw": `${writer}\nself.delegate([writer("out.txt")]).await\n` });
    const child = spawn(process.execPath, [patchworkBin, "run", "--no-agent", "p.pw"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // Wait on state: the first write has landed and the next one's temporary file exists.
    const deadline = Date.now() + 30_000;
    while (!(existsSync(join(dir, "out.txt")) && leftovers(dir).temps.length > 0)) {
      if (Date.now() > deadline) throw new Error("the writer never started writing");
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill(signal);
    expect(await exited).toBe(signal === "SIGINT" ? 130 : 143);
    expect(leftovers(dir)).toEqual({ temps: [], whole: true });
  });
});
