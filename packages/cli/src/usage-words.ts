// Usage errors in the user's words: yargs' messages ("Not enough non-option arguments: got 0,
// need at least 1", "Unknown argument: bogus") rewritten to say what is wrong with what was
// typed, with the option's dashes as written and a "did you mean" where one is close; and the
// end of `patchwork --help`. Loaded with yargs only (main.ts), never on the fast path.
import type { Argv } from "yargs";

import { COMMANDS, PRESET_NAMES } from "./option-table.js";
export { COMMANDS };

/** What yargs knew when it failed: the command it entered (none: the top level) and that command's options. */
export interface UsageContext {
  command?: string;
  /** Long option names (without dashes) and one-letter aliases. */
  options: string[];
}

/** What each command's missing positional is called in a "which …?" question. */
const MISSING: Record<string, string> = {
  run: "which file? Say `patchwork run FILE.pw` (FILE.pw: the program to run)",
  list: "which file? Say `patchwork list FILE.pw`",
  trace: "which trace? Say `patchwork trace FILE.jsonl` (a file written by `run --trace`)",
  parse: "which file? Say `patchwork parse FILE.pw`",
  check: "which files? Say `patchwork check FILE.pw…`",
  mcp: "which files? Say `patchwork mcp FILE.pw…` (.pw files or folders whose skills to serve)",
  plugin: "which files? Say `patchwork plugin FILE.pw… --out DIR`",
};

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `word` when it is close enough to be a typo (else undefined). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(word.toLowerCase(), c.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [c, distance];
  }
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

const dashed = (name: string): string => (name.length === 1 ? `-${name}` : `--${name}`);
const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The option as typed in argv (with its dashes, without `=value`) for yargs' name of it. */
function asTyped(name: string, argv: readonly string[]): string {
  for (const arg of argv) {
    if (!arg.startsWith("-")) continue;
    const bare = arg.replace(/^-+/, "").split("=")[0]!;
    if (bare === name || bare === kebab(name)) return arg.split("=")[0]!;
  }
  return dashed(name);
}

function unknownOption(typed: string, context: UsageContext): string {
  const where = context.command ? ` for ${context.command}` : "";
  let text = `unknown option ${typed}${where}`;
  const bare = typed.replace(/^-+/, "");
  if (!context.command && (typed === "-v" || bare === "version" || closest(bare, ["version"]))) {
    return `${text}; the version is --version (after \`run FILE\`, -v is --verbose)`;
  }
  const guess = closest(bare, context.options.filter((o) => o !== bare));
  if (guess) text += `; did you mean ${dashed(guess)}?`;
  else if (!context.command) text += ` (options such as --agent go after the command: \`patchwork run FILE.pw --agent claude\`)`;
  return text;
}

function isKnown(arg: string, context: UsageContext): boolean {
  const bare = arg.replace(/^-+/, "").split("=")[0]!;
  return context.options.includes(bare) || context.options.includes(bare.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
}

/** The first word of argv that is not an option (the command the user meant). */
function firstWord(argv: readonly string[]): string | undefined {
  return argv.find((a) => a !== "" && !a.startsWith("-"));
}

/**
 * The usage error to show for yargs' `message` on `argv`, in the user's words. Unknown
 * messages pass through unchanged.
 */
export function usageMessage(message: string, argv: readonly string[], context: UsageContext): string {
  if (!context.command) {
    const word = firstWord(argv);
    // Only yargs' own verdict makes a word an unknown command (a command this file does not list stays known).
    if (word !== undefined && /^Unknown commands?:/.test(message) && !(COMMANDS as readonly string[]).includes(word)) {
      // `patchwork hello.pw`: a program where the command goes.
      if (/\.(pw|json)$/.test(word)) return `unknown command ${word}; to run the program, say \`patchwork run ${word}\``;
      const guess = closest(word, COMMANDS);
      return guess
        ? `unknown command ${word}; did you mean ${guess}?`
        : `unknown command ${word} (the commands: ${COMMANDS.join(", ")})`;
    }
    const option = argv.find((a) => a.startsWith("-") && !["-h", "--help", "--version"].includes(a));
    if (option !== undefined && (word === undefined || /^Unknown arguments?:/.test(message))) return unknownOption(option.split("=")[0]!, context);
  }
  if (/^Not enough non-option arguments/.test(message) && context.command && MISSING[context.command]) {
    // An unknown option took the file as its value (`check --no-cach f.pw`): that is the mistake.
    const stray = argv.find((a) => /^--?[A-Za-z]/.test(a) && !isKnown(a, context));
    if (stray !== undefined) return unknownOption(stray.split("=")[0]!, context);
    return `${context.command}: ${MISSING[context.command]}`;
  }
  const unknown = /^Unknown arguments?: (.*)$/.exec(message);
  if (unknown) {
    const names = unknown[1]!.split(", ");
    const typed = names.map((n) => asTyped(n, argv));
    const option = typed.find((t) => t.startsWith("-"));
    if (option !== undefined) return unknownOption(option, context);
    return `${context.command ?? "patchwork"}: unexpected ${typed.map((t) => `'${t}'`).join(", ")}`;
  }
  const extra = /^Unknown commands?: (.*)$/.exec(message);
  if (extra && context.command) return `${context.command}: unexpected ${extra[1]!.split(", ").map((w) => `'${w}'`).join(", ")}`;
  const missingValue = /^Not enough arguments following: (.*)$/.exec(message);
  if (missingValue) return `${asTyped(missingValue[1]!, argv)} needs a value`;
  const invalid = /Argument: (.*), Given: (.*), Choices: (.*)$/s.exec(message);
  if (invalid) return `${asTyped(invalid[1]!.trim(), argv)} takes one of ${invalid[3]!.trim()}; got ${invalid[2]!.trim()}`;
  return message;
}

/** The long names and one-letter aliases of the options yargs knows on `y`. */
export function optionNames(y: Argv<unknown>): string[] {
  const options = (y as unknown as { getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } }).getOptions();
  return [...Object.keys(options.key), ...Object.values(options.alias).flat()];
}

/** The end of `patchwork --help`: agents, no-agent mode, where the docs are. */
export const TOP_EPILOG = [
  `Agents: an ACP agent answers the thinks: --agent CMD (a command line, or a preset: ${PRESET_NAMES.join(", ")}) ` +
    "or the environment variable PATCHWORK_AGENT. Without one, a think or ask evaluates to {__think_prompt: …}, " +
    "the prompt an agent would get, so a program runs, and can be tested, without a model.",
  "Docs: docs/manual/ (tutorial, language, commands) and docs/cli.md in the repository; the installed package's " +
    "README.md; the diagnostic codes: docs/errors.md.",
].join("\n\n");
