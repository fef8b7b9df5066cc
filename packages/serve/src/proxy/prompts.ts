/**
 * Which prompts of the agent panel are Patchwork (design.md §7): a prompt whose text starts
 * with `{` (the block is the program), a prompt that is one fenced ```patchwork block, and
 * the slash commands `/run`, `/check` and `/reset`, and a prompt `$ command` (a shell command).
 * Everything else is the successor's.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { parse, type Diagnostic, type Program } from "@patchwork/parser";

export type PromptKind =
  | { kind: "pass" }
  /** Code typed in the panel: `source` keeps the prompt's lines and columns. */
  | { kind: "program"; source: string }
  /** `/run file [words…]`, or a file's `@command` (`entry` set: the words are its arguments). */
  | { kind: "run"; file: string; args: string[]; entry?: string }
  | { kind: "check"; file: string }
  | { kind: "reset" }
  /** `$ command…`: runs in the session's folder, its output and exit status shown. */
  | { kind: "shell"; command: string }
  /** A Patchwork prompt that cannot run as given (the reply says why). */
  | { kind: "refuse"; text: string };

export const COMMANDS = [
  { name: "run", description: "Run a Patchwork file in this session", input: { hint: "<file.pw> [args…]" } },
  { name: "check", description: "Report a Patchwork file's syntax errors", input: { hint: "<file.pw>" } },
  { name: "reset", description: "Forget this session's Patchwork variables, functions and imports" },
];

const FENCE = /^```(?:patchwork|pw)[ \t]*\r?\n([\s\S]*?)\r?\n?```[ \t]*$/;

/** A slash command of a file in the session's folder (proxy/file-commands.ts). */
export type CommandLookup = (name: string) => { file: string; entry: string } | undefined;

export function classifyPrompt(blocks: ContentBlock[], fileCommand: CommandLookup = () => undefined): PromptKind {
  const text = blocks.map((b) => (b.type === "text" ? b.text : "")).join("");
  const onlyText = blocks.every((b) => b.type === "text");
  const trimmed = text.trim();
  const kind = classifyText(text, trimmed, fileCommand);
  if (kind.kind === "pass" || onlyText) return kind;
  return { kind: "refuse", text: "Patchwork prompts are text: remove the images and attached resources to run this as a program (or ask without the code to talk to the agent)." };
}

function classifyText(text: string, trimmed: string, fileCommand: CommandLookup): PromptKind {
  if (trimmed.startsWith("{")) return { kind: "program", source: text };
  if (trimmed.startsWith("$ ") && trimmed.slice(2).trim() !== "") return { kind: "shell", command: trimmed.slice(2).trim() };
  const fenced = FENCE.exec(trimmed);
  if (fenced) return { kind: "program", source: fenced[1]! };
  const command = /^\/([A-Za-z_][\w-]*)(?=\s|$)\s*([\s\S]*)$/.exec(trimmed);
  const offered = command ? fileCommand(command[1]!) : undefined;
  if (offered) return { kind: "run", file: offered.file, entry: offered.entry, args: splitWords(command![2]!) };
  const slash = /^\/(run|check|reset)(?=\s|$)\s*([\s\S]*)$/.exec(trimmed);
  if (!slash) return { kind: "pass" };
  const words = splitWords(slash[2]!);
  switch (slash[1]) {
    case "reset":
      return words.length === 0 ? { kind: "reset" } : { kind: "refuse", text: "`/reset` takes no arguments." };
    case "check":
      return words.length === 1 ? { kind: "check", file: words[0]! } : { kind: "refuse", text: "Usage: `/check <file.pw>`" };
    default:
      return words.length >= 1
        ? { kind: "run", file: words[0]!, args: words.slice(1) }
        : { kind: "refuse", text: "Usage: `/run <file.pw> [args…]`" };
  }
}

/** An entry's arguments from the words of a slash command: `--arg name=value` names one, as on `patchwork run`'s command line. */
export function splitNamedArgs(words: string[]): { positional: string[]; named: Record<string, string> } {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const pair = words[i] === "--arg" ? words[i + 1] : undefined;
    const eq = pair?.indexOf("=") ?? -1;
    if (pair !== undefined && eq > 0) {
      named[pair.slice(0, eq)] = pair.slice(eq + 1);
      i++;
    } else positional.push(words[i]!);
  }
  return { positional, named };
}

/** Words as a shell splits them, with "…" and '…' quoting (no expansion). */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return words;
}

export interface Parsed {
  /** The source that runs (a `{ … }` prompt's outer braces blanked, so its lines and columns stay). */
  source: string;
  program: Program | null;
  diagnostics: Diagnostic[];
}

/**
 * Parses a panel program. A `{ … }` prompt runs its block's contents as top-level code, so
 * that what it declares stays for the next prompt (and it may declare functions); when the
 * contents alone do not parse (`{ a } { b }`), the prompt runs as written.
 */
export function parsePanelProgram(source: string, fileName: string): Parsed {
  const start = source.indexOf("{");
  const end = source.lastIndexOf("}");
  if (source.trimStart().startsWith("{") && end > start) {
    const inner = `${source.slice(0, start)} ${source.slice(start + 1, end)} ${source.slice(end + 1)}`;
    const r = parse(inner, { fileName });
    if (!r.diagnostics.some((d) => d.severity === "error")) return { source: inner, program: r.program, diagnostics: r.diagnostics };
  }
  const r = parse(source, { fileName });
  return { source, program: r.program, diagnostics: r.diagnostics };
}
