// write(): atomic, keeps the replaced file's mode (and owner when permitted), writes through
// symlinks, and leaves no temporary file behind once the next write has run, even after the
// writing process was killed with SIGKILL in the middle of a write.
import { spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../src/index.js";
import { describeWriteError } from "../src/write-file.js";
import { runSource, tempDir } from "./helpers.js";

const temps = (dir: string) => readdirSync(dir).filter((n) => n.includes(".pw-tmp-"));
const mode = (p: string) => statSync(p).mode & 0o7777;

describe("write() keeps what it replaces", () => {
  it("keeps the mode of the file it replaces, whatever the umask", () => {
    const dir = tempDir();
    for (const m of [0o600, 0o640, 0o755, 0o444]) {
      const p = join(dir, `f${m.toString(8)}.txt`);
      writeFileSync(p, "old");
      chmodSync(p, m);
      const r = runSource(`write("f${m.toString(8)}.txt", "new")`, { cwd: dir });
      expect(r.error).toBeNull();
      expect(readFileSync(p, "utf8")).toBe("new");
      expect(mode(p)).toBe(m);
    }
    expect(temps(dir)).toEqual([]);
  });

  it("a new file gets the usual mode (0666 less the umask)", () => {
    const dir = tempDir();
    writeFileAtomic(join(dir, "new.txt"), "x");
    const umask = process.umask();
    expect(mode(join(dir, "new.txt"))).toBe(0o666 & ~umask);
  });

  const root = process.getuid?.() === 0;
  it.runIf(root)(`keeps the owner and group (as root)${root ? "" : " (skipped: only root can give a file another owner)"}`, () => {
    const dir = tempDir();
    const p = join(dir, "owned.txt");
    writeFileSync(p, "old");
    chownSync(p, 4321, 8765);
    chmodSync(p, 0o640);
    writeFileAtomic(p, "new");
    const st = statSync(p);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([4321, 8765, 0o640]);
  });

  it("writes through a symlink: the link stays a link, its target gets the text and keeps its mode", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "real"));
    writeFileSync(join(dir, "real", "data.txt"), "old");
    chmodSync(join(dir, "real", "data.txt"), 0o600);
    symlinkSync("real/data.txt", join(dir, "link.txt"));
    symlinkSync("link.txt", join(dir, "link2.txt"));
    const r = runSource('write("link2.txt", "new")', { cwd: dir });
    expect(r.error).toBeNull();
    expect(lstatSync(join(dir, "link2.txt")).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, "link.txt"))).toBe("real/data.txt");
    expect(readFileSync(join(dir, "real", "data.txt"), "utf8")).toBe("new");
    expect(mode(join(dir, "real", "data.txt"))).toBe(0o600);
    expect([...temps(dir), ...temps(join(dir, "real"))]).toEqual([]);
  });

  it("a dangling symlink gets its target created", () => {
    const dir = tempDir();
    symlinkSync("target.txt", join(dir, "dangling"));
    writeFileAtomic(join(dir, "dangling"), "made");
    expect(lstatSync(join(dir, "dangling")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "target.txt"), "utf8")).toBe("made");
  });

  it("a symlink loop, a directory or a missing directory is PW3021 naming the path, with no temporary file left", () => {
    const dir = tempDir();
    symlinkSync("b", join(dir, "a"));
    symlinkSync("a", join(dir, "b"));
    mkdirSync(join(dir, "sub"));
    expect(runSource('write("a", "x")', { cwd: dir }).error).toMatch(/^PW3021 at 1:1: file error: write\(\): ELOOP: cannot write '.*\/a' \(too many levels/);
    expect(runSource('write("sub", "x")', { cwd: dir }).error).toMatch(/^PW3021 .*EISDIR: cannot write '.*\/sub' \(it is a folder\)/);
    expect(runSource('write("nodir/f.txt", "x")', { cwd: dir }).error).toMatch(/^PW3021 .*ENOENT: cannot write '.*\/nodir\/f\.txt' \(its folder '.*\/nodir' does not exist\)/);
    expect([...temps(dir), ...temps(join(dir, "sub"))]).toEqual([]);
  });

  it("a folder that exists but cannot be written says so, naming the folder (not that it does not exist)", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "plain.txt"), "x");
    expect(runSource('write("plain.txt/f.txt", "x")', { cwd: dir }).error).toMatch(
      /^PW3021 .*ENOTDIR: cannot write '.*\/plain\.txt\/f\.txt' \(a part of its folder '.*\/plain\.txt' is a file, not a folder\)/,
    );
    // Permission is checked by the kernel (root passes it): the wording for each code, from real errno errors.
    for (const [code, words] of [
      ["EACCES", "exists but cannot be written to: permission denied"],
      ["EPERM", "exists but cannot be written to: operation not permitted"],
      ["EROFS", "is on a read-only file system"],
    ] as const) {
      const e = describeWriteError(Object.assign(new Error(code), { code }), join(dir, "f.txt")) as Error;
      expect(e.message).toBe(`${code}: cannot write '${join(dir, "f.txt")}' (its folder '${dir}' ${words})`);
    }
  });

  it("read() of a folder or a missing file names the path", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sub"));
    expect(runSource('read("sub")', { cwd: dir }).error).toMatch(/^PW3021 .*read\(\): EISDIR: cannot read '.*\/sub' \(it is a folder, not a file\)/);
    expect(runSource('read("missing.txt")', { cwd: dir }).error).toMatch(/^PW3021 .*read\(\): ENOENT: cannot read '.*\/missing\.txt' \(no such file\)/);
  });

  it("removes the stale temporary files of a dead process, never those of a live one", () => {
    const dir = tempDir();
    const dead = join(dir, ".f.txt.pw-tmp-999999999-abc");
    const live = join(dir, `.f.txt.pw-tmp-${process.pid}-def`);
    const other = join(dir, ".g.txt.pw-tmp-999999999-abc");
    for (const p of [dead, live, other]) writeFileSync(p, "partial");
    writeFileAtomic(join(dir, "f.txt"), "x");
    expect(temps(dir).sort()).toEqual([".f.txt.pw-tmp-" + process.pid + "-def", ".g.txt.pw-tmp-999999999-abc"].sort());
  });
});

/** Starts a real writer process; resolves once it has completed its first write. */
async function startWriter(target: string, mb: number): Promise<ChildProcess> {
  const writer = join(import.meta.dirname, "support", "writer.mjs");
  const child = spawn(process.execPath, [writer, target, String(mb)], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((ready, fail) => {
    child.stdout!.once("data", () => ready());
    child.once("exit", (code) => fail(new Error(`writer exited with ${code}`)));
  });
  return child;
}

async function killAfter(child: ChildProcess, ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

describe("write() and kill -9", () => {
  it("writers killed at random moments never leave a partial file, and the next write leaves no temporary file", async () => {
    const dir = tempDir();
    const target = join(dir, "big.txt");
    const MB = 4;
    let leftBehind = 0;
    for (let round = 0; round < 3; round++) {
      // Several real processes writing the same file at once, each killed at a random moment.
      const writers = await Promise.all(Array.from({ length: 4 }, () => startWriter(target, MB)));
      await Promise.all(writers.map((w) => killAfter(w, Math.floor(Math.random() * 150))));
      const text = readFileSync(target, "utf8");
      expect(text.length).toBe(MB * 1024 * 1024);
      expect(text === "a".repeat(text.length) || text === "b".repeat(text.length)).toBe(true);
      leftBehind += temps(dir).length;
    }
    // Killed mid-write, the writers left temporary files behind (this is what is tested).
    expect(leftBehind).toBeGreaterThan(0);
    const r = runSource('write("big.txt", "done")', { cwd: dir });
    expect(r.error).toBeNull();
    expect(readFileSync(target, "utf8")).toBe("done");
    expect(temps(dir)).toEqual([]);
  }, 60_000);
});
