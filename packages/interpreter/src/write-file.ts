/**
 * `write(path, text)` on the Node host: atomic, and faithful to the file it replaces.
 *
 * - The text goes to a temporary file in the target's directory, flushed to disk, then
 *   renamed over the target: a reader (or a crash, or `kill -9`) sees the old file or the new
 *   one, never half of one.
 * - A symlink is written through: the file at the end of its chain is replaced and the link
 *   stays a link (a dangling link gets its target created).
 * - The replaced file's permission bits are kept exactly (not subject to the umask), and its
 *   owner and group where the process may set them (root, or a group it belongs to).
 * - Temporary files are named `.<name>.pw-tmp-<pid>-<random>`. A process killed mid-write
 *   leaves one behind; the next write to the same file removes those whose process is gone.
 *   See docs/decisions/0007-write-file.md.
 * - A `WriteGuard` (the evaluator threads of `@patchwork/agent`) brackets the moments a
 *   temporary file exists, so that a thread stopped from outside (a sibling failed, a timeout,
 *   Ctrl-C) is never stopped inside them: its write finishes or never starts.
 */
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

const TEMP_MARK = ".pw-tmp-";
const MAX_LINKS = 40;

function errnoError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/** The file a write to `path` replaces: `path`, or the end of its chain of symlinks. */
export function writeTarget(path: string): string {
  let p = path;
  for (let hops = 0; hops <= MAX_LINKS; hops++) {
    let st: Stats;
    try {
      st = lstatSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return p;
      throw e;
    }
    if (!st.isSymbolicLink()) return p;
    p = resolve(dirname(p), readlinkSync(p));
  }
  throw errnoError("ELOOP", `too many levels of symbolic links in '${path}'`);
}

/** The prefix of every temporary file of a write to `target`. */
export function tempPrefix(target: string): string {
  return `.${basename(target)}${TEMP_MARK}`;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the temporary files of earlier writes to `target` whose process no longer runs. */
function removeStaleTemps(target: string): void {
  const dir = dirname(target);
  const prefix = tempPrefix(target);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (!Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // another writer removed it first
    }
  }
}

/** Gives the new file the replaced file's owner and group, as far as the process may. */
function keepOwner(fd: number, st: Stats): void {
  const uid = process.geteuid?.() ?? st.uid;
  const gid = process.getegid?.() ?? st.gid;
  if (st.uid === uid && st.gid === gid) return;
  try {
    fchownSync(fd, st.uid, st.gid);
  } catch {
    try {
      fchownSync(fd, uid, st.gid);
    } catch {
      // not permitted: the file becomes ours, as any newly written file would
    }
  }
}

function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text, "utf8");
  while (buf.length > 0) buf = buf.subarray(writeSync(fd, buf));
}

/**
 * Brackets the life of a temporary file: `enter(tmp)` before it is created, `leave()` once it
 * is renamed or removed. Whoever stops the writing thread waits for `leave()`.
 */
export interface WriteGuard {
  enter(tmp: string): void;
  leave(): void;
}

/** Writes `text` to `path` atomically (see the module comment). Errors name `path`. */
export function writeFileAtomic(path: string, text: string, guard?: WriteGuard): void {
  let tmp: string | null = null;
  let entered = false;
  try {
    const target = writeTarget(path);
    removeStaleTemps(target);
    let st: Stats | null = null;
    try {
      st = statSync(target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (st?.isDirectory()) throw errnoError("EISDIR", "is a directory");
    tmp = join(dirname(target), `${tempPrefix(target)}${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
    guard?.enter(tmp);
    entered = true;
    const fd = openSync(tmp, "wx", st ? st.mode & 0o7777 : 0o666);
    try {
      if (st) {
        keepOwner(fd, st);
        fchmodSync(fd, st.mode & 0o7777);
      }
      writeAll(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  } catch (e) {
    if (tmp !== null) {
      try {
        unlinkSync(tmp);
      } catch {
        // the temporary file was never created, or already renamed
      }
    }
    throw describeWriteError(e, path);
  } finally {
    if (entered) guard?.leave();
  }
}

/**
 * Names the file the program asked for, not our temporary one, and says which part is wrong:
 * its folder missing, not a folder, or there but not writable (the write creates a file in
 * the folder, so it is the folder's permission that counts).
 */
export function describeWriteError(e: unknown, path: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (typeof err.code !== "string") return e;
  const dir = dirname(path);
  const why: Record<string, string> = {
    ENOENT: `its folder '${dir}' does not exist`,
    ENOTDIR: `a part of its folder '${dir}' is a file, not a folder`,
    EACCES: `its folder '${dir}' exists but cannot be written to: permission denied`,
    EPERM: `its folder '${dir}' exists but cannot be written to: operation not permitted`,
    EROFS: `its folder '${dir}' is on a read-only file system`,
    EISDIR: "it is a folder",
    ELOOP: "too many levels of symbolic links",
  };
  let reason = why[err.code] ?? err.code;
  // ENOENT with the folder there: the file vanished under us, or a dangling symlink's target folder is missing.
  if (err.code === "ENOENT" && isFolder(dir)) reason = "its target could not be created (a symbolic link to a missing folder?)";
  return Object.assign(new Error(`${err.code}: cannot write '${path}' (${reason})`), { code: err.code });
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
