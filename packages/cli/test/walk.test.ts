// `patchwork test DIR` and `patchwork fmt [--check] DIR` over a tree with a dangling symlink, a
// symlink loop (`up -> ..`), an unreadable file and an unreadable directory: each is a finding
// with its path, the rest of the tree is done, never an internal error (issue 21 §4). Through
// the real binary; as root (which reads anything) the binary runs as `nobody`, so that the
// unreadable entries are unreadable to it.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { walkFiles } from "../src/walk.js";
import { patchworkBin } from "./helpers.js";

const root = process.getuid?.() === 0;
const NOBODY = 65534;

/** Runs `patchwork ARGS` in `cwd` as a user who cannot read what mode 000 protects. */
function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [patchworkBin, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, PATCHWORK_AGENT: "", PATCHWORK_CACHE_DIR: join(cwd, ".cache") },
    ...(root ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A tree with one of each bad entry beside good files; `files` are written first. */
function tree(files: Record<string, string>, unreadable: string, wanted: string): string {
  const dir = mkdtempSync(join(tmpdir(), "pw-walk-"));
  mkdirSync(join(dir, "sub"));
  mkdirSync(join(dir, "locked"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "locked", `hidden${wanted}`), "print(1)\n");
  symlinkSync(`missing${wanted}`, join(dir, `dangling${wanted}`));
  symlinkSync("..", join(dir, "sub", "up"));
  chmodSync(join(dir, unreadable), 0o000);
  chmodSync(join(dir, "locked"), 0o000);
  if (root) {
    for (const p of ["", "sub", ...Object.keys(files)]) chownSync(join(dir, p), NOBODY, NOBODY);
    chmodSync(join(dir, unreadable), 0o000);
  }
  return dir;
}

describe("patchwork test over a tree with bad entries", () => {
  it("reports each with its path, runs the good tests, fails, no stack", () => {
    const dir = tree(
      {
        "good.test.pw": 'print("ok")\n',
        "good.snap": "ok\n",
        "sub/deep.test.pw": 'print("deep")\n',
        "sub/deep.snap": "deep\n",
        "secret.test.pw": 'print("secret")\n',
        "secret.snap": "secret\n",
      },
      "secret.test.pw",
      ".test.pw",
    );
    const r = cli(["test", "."], dir);
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/i);
    expect(r.stdout).toContain("PASS good.test.pw");
    expect(r.stdout).toContain("PASS sub/deep.test.pw");
    expect(r.stdout).toMatch(/^FAIL dangling\.test\.pw: dangling symbolic link \(to missing\.test\.pw\)$/m);
    expect(r.stdout).toMatch(/^NOTE sub\/up: symbolic link loop \(to \.\., a directory it is inside\): not followed$/m);
    expect(r.stdout).toMatch(/^FAIL locked: cannot list this directory: permission denied \(EACCES\)$/m);
    expect(r.stdout).toMatch(/^FAIL secret\.test\.pw: cannot read secret\.test\.pw: permission denied \(EACCES\)$/m);
    expect(r.stdout).toMatch(/^2 passed, 3 failed$/m);
    expect(r.status).toBe(1);
  });
});

describe("patchwork fmt over a tree with bad entries", () => {
  const files = { "a.pw": "var   x = 1\n", "sub/b.pw": "var y   = 2\n", "secret.pw": "var z = 3\n" };

  it("--check: lists the file to format and each bad entry, exit 1, no stack", () => {
    const dir = tree(files, "secret.pw", ".pw");
    const r = cli(["fmt", "--check", "."], dir);
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/i);
    expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual(["a.pw", "sub/b.pw"]);
    expect(r.stderr).toMatch(/^dangling\.pw: dangling symbolic link \(to missing\.pw\)$/m);
    expect(r.stderr).toMatch(/^sub\/up: note: symbolic link loop/m);
    expect(r.stderr).toMatch(/^locked: cannot list this directory: permission denied \(EACCES\)$/m);
    expect(r.stderr).toMatch(/^secret\.pw: cannot read: permission denied \(EACCES\)$/m);
    expect(r.status).toBe(1);
  });

  it("formats the readable files and reports the rest, exit 1", () => {
    const dir = tree(files, "secret.pw", ".pw");
    const r = cli(["fmt", "."], dir);
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/i);
    expect(readFileSync(join(dir, "a.pw"), "utf8")).toBe("var x = 1\n");
    expect(readFileSync(join(dir, "sub/b.pw"), "utf8")).toBe("var y = 2\n");
    expect(r.stderr).toMatch(/^secret\.pw: cannot read/m);
    expect(r.stderr).toMatch(/^dangling\.pw: dangling/m);
    expect(r.status).toBe(1);
  });

  it("a loop alone is a note: the check passes", () => {
    const dir = mkdtempSync(join(tmpdir(), "pw-walk-"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "ok.pw"), "var x = 1\n");
    symlinkSync("..", join(dir, "sub", "up"));
    if (root) for (const p of ["", "sub", "sub/ok.pw"]) chownSync(join(dir, p), NOBODY, NOBODY);
    const r = cli(["fmt", "--check", "."], dir);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("sub/up: note: symbolic link loop (to .., a directory it is inside): not followed\n");
    expect(r.status).toBe(0);
  });
});

describe("walkFiles", () => {
  it("follows links to files and directories once, and a self-link is a loop", () => {
    const dir = mkdtempSync(join(tmpdir(), "pw-walk-"));
    mkdirSync(join(dir, "real"));
    writeFileSync(join(dir, "real", "x.pw"), "");
    writeFileSync(join(dir, "target.txt"), "");
    symlinkSync("real", join(dir, "alias"));
    symlinkSync("../target.txt", join(dir, "real", "link.pw"));
    symlinkSync("self.pw", join(dir, "self.pw"));
    const r = walkFiles(dir, (n) => n.endsWith(".pw"));
    expect(r.files).toEqual([join(dir, "alias", "link.pw"), join(dir, "alias", "x.pw")]);
    expect(r.problems).toEqual([{ path: join(dir, "self.pw"), message: "symbolic link loop (too many levels of symbolic links (ELOOP))", severity: "note" }]);
  });
});
