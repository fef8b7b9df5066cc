// Every option of every command, declared once with the commands it applies to (issue 35), so
// that commands cannot drift apart: main.ts builds each command's yargs options from this table,
// fast-args.ts reads `run`'s common ones from it without yargs, and a test checks that
// docs/cli.md's option table says the same. Adding an option is one entry here (its handler
// then reads it); say in `why` for which commands it does not apply and why, where a user
// might expect it. Plain data, no imports: the CommonJS launcher holds it (decision 0020).

/** The commands `patchwork --help` lists, in its order (mcp-relay is internal). */
export const COMMANDS = ["run", "list", "test", "trace", "acp", "mcp", "plugin", "parse", "check", "fmt", "lsp"] as const;

export type CommandName = (typeof COMMANDS)[number];

export interface OptionSpec {
  /** The long name as typed, without its dashes (`no-agent`: yargs' key `noAgent`). */
  name: string;
  /** `count`: a flag that may be given more than once (`-vv`): yargs counts it. */
  type: "string" | "number" | "boolean" | "count";
  /** Repeatable: yargs gives an array. */
  array?: true;
  alias?: string;
  choices?: readonly string[];
  /** What it does; a command whose meaning differs has its own wording in `commands`. */
  describe: string;
  /** The commands it applies to: `true`, or that command's own wording of `describe`. */
  commands: Partial<Record<CommandName, true | string>>;
  /** Its default, per command (yargs fills it in; `run`'s is also the fast path's). */
  defaults?: Partial<Record<CommandName, number>>;
  /** A command that cannot go without it. */
  required?: Partial<Record<CommandName, true>>;
  /** Its heading in `run --help`. */
  group?: "Agent:" | "Program:" | "Trace and replay:";
  /** `run`'s fast path (fast-args.ts) reads it without yargs. */
  fast?: true;
  /** Where a user might expect it but it does not apply: why (docs/cli.md). */
  why?: string;
}

/** The `--agent` presets (presets.ts has their command lines; a test keeps the two and the docs' lists equal). */
export const PRESET_NAMES = ["claude", "codex", "gemini", "opencode", "qwen", "copilot"] as const;

const AGENT = `an ACP agent command line, or a preset: ${PRESET_NAMES.map((p) => `"${p}"`).join(", ")}`;

export const OPTIONS: readonly OptionSpec[] = [
  {
    name: "agent",
    type: "string",
    group: "Agent:",
    fast: true,
    describe: `the agent that answers the thinks: ${AGENT} (default: $PATCHWORK_AGENT)`,
    commands: {
      run: true,
      acp: `the agent behind the proxy: ${AGENT} (default: $PATCHWORK_AGENT)`,
      mcp: `the agent for the skills' thinks: ${AGENT} (default: $PATCHWORK_AGENT, else the client's sampling)`,
      plugin: `the agent that answers the skills' thinks, baked into the plugin's patchwork mcp: ${AGENT}`,
      test: `with --update: the agent to record the cassettes with: ${AGENT}`,
    },
  },
  {
    name: "no-agent",
    type: "boolean",
    group: "Agent:",
    fast: true,
    describe: "run without an agent even if $PATCHWORK_AGENT is set: think and ask blocks evaluate to their prompt",
    commands: {
      run: true,
      mcp: "no ACP agent even if $PATCHWORK_AGENT is set: the client's sampling if it offers it, else thinks evaluate to their prompt",
      plugin: "bake --no-agent into the plugin's patchwork mcp: the client's sampling, else prompts, whatever $PATCHWORK_AGENT says there",
      test: "with --update: rewrite the snapshots only, even if $PATCHWORK_AGENT is set (tests replay without an agent anyway)",
    },
    why: "acp: the panel's prompts go to the agent, so it needs one",
  },
  { name: "ask-user", type: "boolean", group: "Agent:", fast: true, describe: "show ask blocks on the terminal and read the answer", commands: { run: true } },
  {
    name: "verbose",
    alias: "v",
    type: "count",
    group: "Agent:",
    fast: true,
    describe: "stream the agent's text and tool calls to stderr; show each think's value with its structure (-vv or --verbose=2: the agent's own log lines too)",
    commands: {
      run: true,
      mcp: "stream each call's agent text, tool calls and think values to stderr",
      acp: "log what the proxy does (sessions, the agent's restarts) to stderr",
      test: "show each test's output (and, with --update --agent, what the agent does) under its line",
    },
  },
  {
    name: "quiet",
    type: "boolean",
    group: "Agent:",
    fast: true,
    describe: "no progress line on the terminal (loops' items done, thinks, ETA, cost); the cost summary stays",
    commands: { run: true },
  },
  {
    name: "permissions",
    type: "string",
    choices: ["allow", "deny", "ask"],
    group: "Agent:",
    describe: "answer to the agent's permission requests for tools other than do (default deny; ask: on the terminal)",
    commands: {
      run: true,
      mcp: "answer to the agent's permission requests for tools other than do: allow or deny (default deny; no terminal to ask on)",
      plugin: "bake this --permissions (allow or deny) into the plugin's patchwork mcp",
      test: "with --update --agent: answer to the agent's permission requests for tools other than do (default deny)",
    },
    why: "acp: the editor's panel answers the agent's permission requests",
  },
  {
    name: "idle-timeout",
    type: "number",
    group: "Agent:",
    fast: true,
    defaults: { run: 600, acp: 600 },
    describe: "fail a think when the agent sends nothing for this many seconds (time in do blocks excluded)",
    commands: { run: true, acp: true, mcp: true, plugin: "bake this --idle-timeout into the plugin's patchwork mcp", test: "with --update --agent: as for run" },
  },
  {
    name: "restart-agent-after",
    type: "number",
    group: "Agent:",
    describe: "restart the agent process between thinks after this many sessions, 0 never (default: per agent)",
    commands: { run: true, acp: true },
  },
  { name: "mcp-transport", type: "string", choices: ["http", "stdio", "acp"], group: "Agent:", describe: "force the MCP transport for the do tool", commands: { run: true, acp: true } },
  { name: "entry", type: "string", group: "Program:", fast: true, describe: "item to run instead of the default entry point", commands: { run: true } },
  { name: "arg", type: "string", array: true, group: "Program:", describe: "a named argument of the entry: --arg name=value (repeatable)", commands: { run: true } },
  {
    name: "cwd",
    type: "string",
    group: "Program:",
    fast: true,
    describe: "working directory of the program (an existing folder)",
    commands: { run: true, mcp: "working directory of the skills' runs (an existing folder)", acp: "working directory of the agent and of the panel's programs (an existing folder)" },
    why: "test: each test runs in its own folder",
  },
  {
    name: "timeout",
    type: "number",
    group: "Program:",
    fast: true,
    describe: "stop the program after this many seconds (an error, exit 1)",
    commands: { run: true, mcp: "stop a call after this many seconds (a tool error)", plugin: "bake this --timeout into the plugin's patchwork mcp" },
    why: "test: a test replays its cassette in the patchwork process, without an agent to wait for. acp: the editor's panel cancels a prompt that runs too long",
  },
  {
    name: "max-workers",
    type: "number",
    group: "Program:",
    describe: "most worker tasks running at once (default 8; the rest wait)",
    commands: { run: true, mcp: "most tool calls running at once, and worker tasks of each (default 8)" },
  },
  {
    name: "max-thinks",
    type: "number",
    group: "Program:",
    describe: "stop before the run asks the agent more thinks than this (exit 3; $PATCHWORK_MAX_THINKS)",
    commands: { run: true },
  },
  {
    name: "budget",
    type: "string",
    group: "Program:",
    describe: "stop before a think would pass this cost (2.50, 2.50USD) or number of tokens (2000000tok) (exit 3; $PATCHWORK_BUDGET)",
    commands: { run: true },
  },
  { name: "keep-session", type: "boolean", group: "Program:", fast: true, describe: "keep self.session.dir after the run", commands: { run: true } },
  {
    name: "no-cache",
    type: "boolean",
    group: "Program:",
    fast: true,
    describe: "parse every file afresh; read and write no cache entry (docs/cli.md)",
    commands: { run: true, check: "check every file afresh; read and write no cache entry" },
  },
  {
    name: "json",
    type: "boolean",
    group: "Program:",
    fast: true,
    describe: "print one JSON object {value, output} at the end instead of the output as it comes",
    commands: { run: true, list: "print the entries as JSON" },
  },
  {
    name: "trace",
    type: "string",
    group: "Trace and replay:",
    fast: true,
    describe: "write a JSON-lines trace of the run to this file (docs/trace.md)",
    commands: { run: true },
    why: "mcp, acp: calls and programs run at once; trace one with `run --trace FILE ENTRY ARGS…`. test: a test's run is its cassette",
  },
  {
    name: "trace-text-limit",
    type: "number",
    group: "Trace and replay:",
    describe: "longest agent message, tool content, do output or print kept in the trace (default 2000)",
    commands: { run: true },
  },
  { name: "record", type: "string", group: "Trace and replay:", fast: true, describe: "record the thinks (prompts, do calls, answers) to this cassette file", commands: { run: true } },
  { name: "replay", type: "string", group: "Trace and replay:", fast: true, describe: "answer thinks from this cassette, with no agent", commands: { run: true } },
  {
    name: "resume",
    type: "string",
    group: "Trace and replay:",
    fast: true,
    describe: "go on with a cassette a killed or failed recording left: replay its answers, ask the agent the rest, append to it",
    commands: { run: true },
  },
  {
    name: "replay-missing",
    type: "string",
    choices: ["error", "agent"],
    group: "Trace and replay:",
    fast: true,
    describe: "a think the cassette lacks: fail (default), or ask the agent and update the cassette",
    commands: { run: true },
  },
  { name: "update", type: "boolean", describe: "rewrite the snapshots (and, with --agent, re-record the cassettes)", commands: { test: true } },
  { name: "mermaid", type: "string", describe: "write a mermaid sequenceDiagram to this file (no file: to stdout)", commands: { trace: true } },
  { name: "html", type: "string", describe: "write a self-contained HTML timeline to this file (no file: to stdout)", commands: { trace: true } },
  { name: "http", type: "number", describe: "serve Streamable HTTP on 127.0.0.1:PORT instead of stdio ($PATCHWORK_MCP_TOKEN: bearer token)", commands: { mcp: true } },
  { name: "out", type: "string", describe: "the plugin's folder (new, empty, or a plugin written before)", commands: { plugin: true }, required: { plugin: true } },
  { name: "name", type: "string", describe: "the plugin's name (default: the first file's default trait in kebab-case)", commands: { plugin: true } },
  { name: "patchwork", type: "string", describe: 'the command line that starts Patchwork in the plugin\'s .mcp.json (default "patchwork")', commands: { plugin: true } },
  { name: "check", type: "boolean", describe: "change nothing; list files that would change (exit 1 if any)", commands: { fmt: true } },
  { name: "stdio", type: "boolean", describe: "use stdio (the default and only transport)", commands: { lsp: true } },
];

/** The options of one command, in table order. */
export function optionsOf(command: CommandName): OptionSpec[] {
  return OPTIONS.filter((o) => o.commands[command] !== undefined);
}
