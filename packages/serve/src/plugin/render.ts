/**
 * The text of each file of a Claude Code plugin made from Patchwork files: the manifest, the
 * marketplace that lists it, the MCP configuration that starts `patchwork mcp` on the
 * plugin's copy of the files, a SKILL.md per skill and a command file per `@command`.
 * Pure functions of their inputs; write.ts puts them on disk.
 */
import { inputSchema, typeLookup } from "../mcp/schema.js";
import { entryDoc, type ServedEntry } from "../served.js";

/** The server name in the plugin's .mcp.json. */
export const SERVER_NAME = "patchwork";

export interface PluginMeta {
  name: string;
  version: string;
  description: string;
  author: string;
}

/** The name Claude Code gives a plugin's MCP tool: `mcp__plugin_<plugin>_<server>__<tool>`. */
export function claudeToolName(plugin: string, tool: string): string {
  return `mcp__${`plugin:${plugin}:${SERVER_NAME}`.replace(/[^a-zA-Z0-9_-]/g, "_")}__${tool}`;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** `.claude-plugin/plugin.json`. */
export function pluginJson(meta: PluginMeta): string {
  return json({ name: meta.name, version: meta.version, description: meta.description, author: { name: meta.author } });
}

/** The marketplace's name: `claude plugin install <plugin>@<marketplace>`. */
export const marketplaceName = (plugin: string) => `patchwork-${plugin}`.slice(0, 64);

/** `.claude-plugin/marketplace.json`: a marketplace of this one plugin, at the same folder. */
export function marketplaceJson(meta: PluginMeta): string {
  return json({
    name: marketplaceName(meta.name),
    owner: { name: meta.author },
    metadata: { description: `The Patchwork plugin ${meta.name}`, version: meta.version },
    plugins: [{ name: meta.name, source: "./", description: meta.description, version: meta.version, author: { name: meta.author } }],
  });
}

/** `.mcp.json`: `patchwork mcp` on the plugin's own copies (`${CLAUDE_PLUGIN_ROOT}/pw/…`). */
export function mcpJson(command: string[], files: string[], agent: string | undefined, more: string[] = []): string {
  const args = [...command.slice(1), "mcp", ...files.map((f) => `\${CLAUDE_PLUGIN_ROOT}/${f}`), ...(agent ? ["--agent", agent] : []), ...more];
  return json({ mcpServers: { [SERVER_NAME]: { command: command[0], args } } });
}

/** A YAML scalar on one line (JSON strings are YAML double-quoted scalars). */
const yaml = (text: string) => JSON.stringify(text.replace(/\s+/g, " ").trim());

/** The one-line description of an entry: its doc comment, else what it runs. */
export function describeEntry(s: ServedEntry, fileLabel: string): string {
  const doc = entryDoc(s.entry.doc).text;
  return doc !== "" ? doc.replace(/\s+/g, " ") : `Runs the Patchwork ${s.kind} ${s.entry.signature} of ${fileLabel}`;
}

/** The parameters as a Markdown list: name, type, required (as the tool's inputSchema says), meaning. */
function paramList(s: ServedEntry): string {
  const docs = entryDoc(s.entry.doc).params;
  if (s.entry.params.length === 0) return "It takes no arguments.";
  const required = new Set((inputSchema(s.entry, typeLookup(s.file.program)).required as string[] | undefined) ?? []);
  const lines = s.entry.params.map((p) => {
    const type = p.type ?? "string";
    const meaning = docs[p.name] ? `: ${docs[p.name]}` : "";
    return `- \`${p.name}\` (${type}, ${required.has(p.name) ? "required" : "optional"})${meaning}`;
  });
  return `Its arguments:\n\n${lines.join("\n")}`;
}

const RESULT = [
  "The tool runs the Patchwork code and gives back, as text, what it printed, the answers of its",
  "thinks and its return value: use that result to answer the user. A result marked as an",
  "error says what went wrong (a bad argument, or a runtime error with its position in the",
  "source): correct the arguments and call the tool again, or report the error.",
].join("\n");

/** `skills/<skill>/SKILL.md`. */
export function skillMd(s: ServedEntry, meta: PluginMeta, skill: string, fileLabel: string): string {
  const tool = claudeToolName(meta.name, s.tool);
  const doc = entryDoc(s.entry.doc).text;
  return [
    "---",
    `name: ${skill}`,
    `description: ${yaml(describeEntry(s, fileLabel))}`,
    `allowed-tools: ${tool}`,
    "---",
    "",
    `# ${meta.name}:${skill}`,
    "",
    ...(doc !== "" ? [doc, ""] : []),
    `To use this skill, call the MCP tool \`${s.tool}\` of the plugin's \`${SERVER_NAME}\` server`,
    `(Claude Code names it \`${tool}\`) once, with the arguments the user gave.`,
    `It runs \`${s.entry.signature}\` of \`${fileLabel}\` (a Patchwork ${s.kind}).`,
    "",
    paramList(s),
    "",
    RESULT,
    "",
  ].join("\n");
}

/** `commands/<command>.md`: runs the paired skill (or, for a command alone, its tool) with `$ARGUMENTS`. */
export function commandMd(s: ServedEntry, meta: PluginMeta, skill: string | null, fileLabel: string): string {
  const tool = claudeToolName(meta.name, s.tool);
  const hint = s.entry.params.map((p) => `<${p.name}>`).join(" ");
  const body =
    skill !== null
      ? [`Use the ${meta.name}:${skill} skill with these arguments: $ARGUMENTS`]
      : [
          `Call the MCP tool \`${tool}\` (\`${s.entry.signature}\` of \`${fileLabel}\`) with these arguments: $ARGUMENTS`,
          "",
          paramList(s),
          "",
          RESULT,
        ];
  return [
    "---",
    `description: ${yaml(describeEntry(s, fileLabel))}`,
    ...(hint !== "" ? [`argument-hint: ${yaml(hint)}`] : []),
    `allowed-tools: ${skill !== null ? `Skill(${meta.name}:${skill}), ` : ""}${tool}`,
    "---",
    "",
    ...body,
    "",
  ].join("\n");
}
