// What the fast path reads without yargs (main.ts `fastPath`, and the launcher, launch.ts):
// `run`'s command line and the version. A module of its own so that the launcher holds no more
// than it needs.
import { readFileSync } from "node:fs";
import { OPTIONS } from "./option-table.js";
import type { RunArgs } from "./run-command.js";

/** The CLI package's version (its package.json is one directory up, from dist/ and bundle/ alike). */
export function cliVersion(): string {
  return JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
}

/** `check FILE…` with files only (no option): the files; else undefined (yargs reads it). */
export function fastCheckArgs(argv: string[]): string[] | undefined {
  return argv.length >= 2 && argv[0] === "check" && argv.slice(1).every(plain) ? argv.slice(1) : undefined;
}

/**
 * A run with no agent, recording or trace named on its command line (a replay without an
 * agent included): the fast-commands script may hold it whole (decision 0018).
 */
export function wholeInScript(run: RunArgs): boolean {
  return run.agent === undefined && run.trace === undefined && run.record === undefined && run.resume === undefined && run.replayMissing !== "agent";
}

/**
 * A run that replays first and goes on with an agent (`--resume`, `--replay-missing=agent`;
 * run-command.ts `replaysFirst`) in this directory: its evaluator thread may start before
 * anything else loads (`EvaluatorThreadAhead`).
 */
export function threadAhead(run: RunArgs): boolean {
  return run.cwd === undefined && (run.resume !== undefined || run.replayMissing === "agent");
}

/** An argument yargs would take as a positional value (not an option, not `--`). */
export const plain = (arg: string | undefined): arg is string => arg !== undefined && arg !== "" && !arg.startsWith("-");

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Defaults of `patchwork run`'s options (option-table.ts): shared by the yargs table and the fast path. */
export const RUN_DEFAULTS: Partial<RunArgs> = Object.fromEntries(
  OPTIONS.flatMap((o) => (o.defaults?.run !== undefined ? [[camel(o.name), o.defaults.run]] : [])),
);

/** `run`'s flags the fast path knows (each sets its option to true), as typed: `--verbose`, `-v` → `verbose`. */
const RUN_FLAGS: Record<string, string> = {};

/** `run`'s options with a value that the fast path knows: string ones, and numbers written plainly. */
const RUN_VALUES: Record<
  string,
  {
    key: string;
    number?: true;
    /** The only values it takes (yargs' `choices`): any other is left to yargs, which says so. */
    choices?: readonly string[];
  }
> = {};

for (const o of OPTIONS) {
  if (!o.fast || !o.commands.run) continue;
  const key = camel(o.name);
  if (o.type === "boolean" || o.type === "count") {
    RUN_FLAGS[`--${o.name}`] = key;
    if (o.alias) RUN_FLAGS[`-${o.alias}`] = key;
  } else RUN_VALUES[`--${o.name}`] = { key, ...(o.type === "number" ? { number: true as const } : {}), ...(o.choices ? { choices: o.choices } : {}) };
}

/** A number as a command line writes one plainly (`5`, `0.5`): read alike by yargs and `Number`. */
const PLAIN_NUMBER = /^(0|[1-9]\d*)(\.\d+)?$/;

/**
 * `run FILE [ENTRY [ARGS…]]` with the flags of RUN_FLAGS and the options of RUN_VALUES
 * (`--agent CMD` or `--agent=CMD`…), each at most once and anywhere after `run` (before the
 * file as well as after it), read as yargs reads them; undefined for any other command line
 * (yargs then decides). A test compares the two on many command lines.
 */
export function fastRunArgs(argv: string[]): RunArgs | undefined {
  if (argv[0] !== "run") return undefined;
  const out: Partial<RunArgs> = { ...RUN_DEFAULTS };
  const words: string[] = [];
  const seen = new Set<string>();
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg !== "" && !arg.startsWith("-")) {
      words.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const valued = RUN_VALUES[name];
    const key = valued?.key ?? RUN_FLAGS[name];
    if (key === undefined || seen.has(key)) return undefined;
    seen.add(key);
    if (valued) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (!plain(value) || (valued.number && !PLAIN_NUMBER.test(value))) return undefined;
      if (valued.choices && !valued.choices.includes(value)) return undefined;
      (out as Record<string, unknown>)[key] = valued.number ? Number(value) : value;
    } else if (eq > 0) return undefined;
    // (`--verbose` is a level, 1 here: yargs counts it.)
    else (out as Record<string, unknown>)[key] = RUN_FLAGS[name] === "verbose" ? 1 : true;
  }
  const [file, ...rest] = words;
  if (file === undefined) return undefined;
  // With --entry every word after the file is an argument; else the first one names the entry.
  if (out.entry !== undefined) return { ...out, file, ...(rest.length > 0 ? { args: rest } : {}), entryOption: true };
  if (rest.length > 0) out.entry = rest[0];
  if (rest.length > 1) out.args = rest.slice(1);
  return { ...out, file, entryOption: false };
}
