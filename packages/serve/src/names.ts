/**
 * Names of Patchwork served to other tools (docs/decisions/0012-entry-results.md): a file's
 * plugin name (its default-exported trait's name in kebab-case, as the reference's compiler
 * named plugins: `Greeter` → `greeter`, `InterpolationTest` → `interpolation-test`; else the
 * file's base name), and the MCP tool name of each skill or command, which Claude Code and
 * other clients require to match `^[a-zA-Z0-9_-]{1,64}$`.
 */
import { basename, extname } from "node:path";
import type { Program } from "@patchwork/parser";

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** `InterpolationTest` → `interpolation-test`, `my_file` → `my-file`; only `[a-z0-9-]`, never empty. */
export function kebabCase(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  return words.length > 0 ? words.join("-") : "patchwork";
}

/** The plugin name of a file: its default-exported trait, else its first trait, else its base name; kebab-case. */
export function pluginName(program: Program, fileName: string): string {
  const traits = program.body.filter((i) => i.kind === "TraitDecl");
  const trait = traits.find((t) => t.isDefault) ?? traits[0];
  return kebabCase(trait ? trait.name : basename(fileName, extname(fileName)));
}

/** A name cut to the tool-name alphabet (other characters become `_`) and to 64 characters. */
export function toolNameOf(text: string): string {
  const cleaned = text.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return cleaned === "" ? "_" : cleaned;
}

export interface NamedSkill {
  /** The plugin name of the skill's file. */
  plugin: string;
  /** The entry's name (a `@skill`/`@command` name). */
  entry: string;
}

/**
 * The MCP tool name of each skill, in order: the entry's own name, or `<plugin>_<entry>` for
 * every skill whose name another file's skill shares (and, should that clash too, a numbered
 * suffix). Every name matches `TOOL_NAME`.
 */
export function toolNames(skills: NamedSkill[]): string[] {
  const count = new Map<string, number>();
  for (const s of skills) count.set(toolNameOf(s.entry), (count.get(toolNameOf(s.entry)) ?? 0) + 1);
  const taken = new Set<string>();
  return skills.map((s) => {
    const plain = toolNameOf(s.entry);
    let name = count.get(plain)! > 1 ? toolNameOf(`${s.plugin}_${s.entry}`) : plain;
    for (let i = 2; taken.has(name); i++) name = toolNameOf(`${name.slice(0, 60)}_${i}`);
    taken.add(name);
    return name;
  });
}
