/** File and environment builtins. Paths resolve against the program's working directory. */
import { isAbsolute, resolve } from "node:path";
import { raise } from "../errors.js";
import { toText } from "../values.js";
import { needString } from "./core.js";
import type { BuiltinDef, CallSite } from "./types.js";

function pathOf(site: CallSite, p: string): string {
  return isAbsolute(p) ? p : resolve(site.rt.cwd, p);
}

function fileError(site: CallSite, e: unknown): never {
  const detail = `${site.name}(): ${e instanceof Error ? e.message : String(e)}`;
  return raise("PW3021", site.span, site.file, { detail });
}

/** A read error that names the path and says what is wrong with it in words. */
function readError(path: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    ENOENT: "no such file",
    EISDIR: "it is a folder, not a file",
    EACCES: "permission denied",
    ENOTDIR: "a part of its path is a file, not a folder",
  };
  if (typeof code !== "string" || why[code] === undefined) return e as Error;
  return new Error(`${code}: cannot read '${path}' (${why[code]})`);
}

export const ioBuiltins: Record<string, BuiltinDef> = {
  read: {
    min: 1,
    max: 1,
    fn: (args, site) => {
      const p = pathOf(site, needString(args[0]!, "the path", site));
      try {
        return site.rt.host.readFile(p);
      } catch (e) {
        return fileError(site, readError(p, e));
      }
    },
  },
  write: {
    min: 2,
    max: 2,
    fn: (args, site) => {
      const p = pathOf(site, needString(args[0]!, "the path", site));
      try {
        site.rt.host.writeFile(p, toText(args[1]!));
      } catch (e) {
        return fileError(site, e);
      }
      return null;
    },
  },
  exists: {
    min: 1,
    max: 1,
    fn: (args, site) => site.rt.host.exists(pathOf(site, needString(args[0]!, "the path", site))),
  },
  env: {
    min: 1,
    max: 1,
    fn: (args, site) => site.rt.host.env(needString(args[0]!, "the name", site)) ?? null,
  },
};
