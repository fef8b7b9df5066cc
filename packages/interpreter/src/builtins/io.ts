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

export const ioBuiltins: Record<string, BuiltinDef> = {
  read: {
    min: 1,
    max: 1,
    fn: (args, site) => {
      const p = pathOf(site, needString(args[0]!, "the path", site));
      try {
        return site.rt.host.readFile(p);
      } catch (e) {
        return fileError(site, e);
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
