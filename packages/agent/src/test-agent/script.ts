/**
 * The scripted test agent's script format (documented in packages/agent/README.md),
 * validated with zod, and the rule that picks a script entry for a prompt.
 */
import { readFileSync } from "node:fs";
import * as z from "zod";

const step = z.union([
  /** `id`: the chunk's `messageId` (chunks of one message share it). */
  z.object({ text: z.string(), id: z.string().optional() }).strict(),
  z.object({ thought: z.string() }).strict(),
  z.object({ textFor: z.string(), text: z.string() }).strict(),
  z.object({ reply: z.string(), id: z.string().optional() }).strict(),
  /** Any session update, sent as is (usage_update, notice, plan, available_commands_update…); `for`: another session's id. */
  z.object({ update: z.record(z.string(), z.unknown()), for: z.string().optional() }).strict(),
  /** Announces a call of the do tool, then reports it failed with this text, without calling it. */
  z.object({ failedDo: z.number().int(), error: z.string() }).strict(),
  /** Usage figures for the prompt response (`PromptResponse.usage`). */
  z.object({ promptUsage: z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }).strict() }).strict(),
  z.object({ do: z.number().int(), ask: z.boolean().optional(), echo: z.boolean().optional(), repeat: z.number().int().min(1).optional() }).strict(),
  /** Asks permission for a tool call titled so; `name`, `meta`, `rawInput`, `toolCallId` add those fields. */
  z
    .object({
      permission: z.string(),
      name: z.string().optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
      rawInput: z.unknown().optional(),
      toolCallId: z.string().optional(),
    })
    .strict(),
  z.object({ toolCall: z.string() }).strict(),
  /** Reads a file through the client (`fs/read_text_file`); its text (or the error) becomes `{{file}}`. */
  z.object({ readFile: z.string() }).strict(),
  z.object({ stop: z.enum(["end_turn", "refusal", "max_tokens", "max_turn_requests", "cancelled"]) }).strict(),
  z.object({ sleep: z.number().int().min(0) }).strict(),
  /** Answers the prompt with a JSON-RPC internal error (`Internal error: TEXT`, `data` as given), as Claude Code reports an API error. */
  z.object({ fail: z.string(), data: z.record(z.string(), z.unknown()).optional() }).strict(),
  z.object({ hang: z.literal(true) }).strict(),
  /** Kills the agent process (SIGKILL); with `onceFile`, only when that file does not exist yet (it is created first): the next process goes on. */
  z.object({ crash: z.literal(true), onceFile: z.string().optional() }).strict(),
  z.object({ exit: z.number().int() }).strict(),
  z.object({ garbage: z.string() }).strict(),
  z.object({ doAfterEnd: z.number().int(), delayMs: z.number().int().min(0).optional() }).strict(),
  z.object({ spawn: z.string() }).strict(),
  z.object({ awaitLate: z.literal(true) }).strict(),
]);

export type Step = z.infer<typeof step>;

const entry = z
  .object({
    match: z.string().optional(),
    once: z.boolean().optional(),
    steps: z.array(step),
  })
  .strict();

export type ScriptEntry = z.infer<typeof entry>;

export const scriptSchema = z
  .object({
    /** `agentInfo.name` to answer `initialize` with (default `patchwork-test-agent`); picks the client's agent profile. */
    agentName: z.string().optional(),
    /** Protocol version to answer `initialize` with (default: the client's). */
    protocolVersion: z.number().int().optional(),
    /** Advertise `mcpCapabilities.http` (default true). */
    mcpHttp: z.boolean().optional(),
    /** Advertise `sessionCapabilities.close` and accept `session/close` (default true). */
    sessionClose: z.boolean().optional(),
    /** Advertise `mcpCapabilities.acp` (default false). */
    mcpAcp: z.boolean().optional(),
    /** Wait this long before answering `initialize` (a slow-starting agent). */
    initializeDelayMs: z.number().int().min(0).optional(),
    /** Misbehave at `initialize`. */
    onInitialize: z.enum(["crash", "hang", "garbage", "exit"]).optional(),
    /** Answer `session/new` with a JSON-RPC error carrying this text. */
    failSessionNew: z.string().optional(),
    /** Answer only these `session/new` requests (1 the first) with an error. */
    failSessionNewAt: z.array(z.number().int().min(1)).optional(),
    /** Wait this long before answering each `session/new` (an agent whose sessions are dear to make). */
    sessionNewDelayMs: z.number().int().min(0).optional(),
    /** Wait this long more before answering a `session/new` that names MCP servers (an agent that registers them first, as OpenCode does). */
    mcpServersDelayMs: z.number().int().min(0).optional(),
    /**
     * A model outage: prompts that arrive within `ms` of the first prompt, or the first
     * `prompts` prompts, are answered with a JSON-RPC internal error `Internal error: ERROR`
     * (`data` as given), as an agent reports an overload its own retries did not get past.
     */
    outage: z
      .object({
        ms: z.number().int().min(0).optional(),
        prompts: z.number().int().min(0).optional(),
        error: z.string(),
        data: z.record(z.string(), z.unknown()).optional(),
      })
      .strict()
      .optional(),
    /** Also append every log line to this file (synchronously, before the answer it logs goes out). */
    logFile: z.string().optional(),
    /** Also log each prompt's text (`prompt text: "…"`, JSON), to count which thinks were asked. */
    logPrompts: z.boolean().optional(),
    /** Also log when each prompt arrived (`prompt at: MS`, milliseconds since the epoch), to check a rate. */
    logPromptTimes: z.boolean().optional(),
    /** Text written to stdout at start-up (makes the process not an ACP agent). */
    banner: z.string().optional(),
    prompts: z.array(entry).default([]),
    /** Used when no entry matches (default: reply "NO SCRIPT ENTRY"). */
    fallback: entry.optional(),
  })
  .strict();

export type Script = z.infer<typeof scriptSchema>;

export function loadScript(argv: string[]): Script {
  let raw: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--json") raw = argv[++i];
    else if (arg === "--script") raw = readFileSync(argv[++i]!, "utf8");
    else if (!arg.startsWith("-")) raw = readFileSync(arg, "utf8");
  }
  raw ??= process.env.PATCHWORK_TEST_AGENT_SCRIPT;
  if (raw === undefined) return scriptSchema.parse({});
  const parsed = scriptSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`invalid test agent script: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Picks the entry for a prompt: the first unconsumed entry whose `match` is in the prompt (or that has none). */
export class ScriptCursor {
  private readonly consumed = new Set<number>();

  constructor(private readonly script: Script) {}

  pick(prompt: string): ScriptEntry {
    const entries = this.script.prompts;
    for (let i = 0; i < entries.length; i++) {
      if (this.consumed.has(i)) continue;
      const e = entries[i]!;
      if (e.match !== undefined && !prompt.includes(e.match)) continue;
      if (e.match === undefined || e.once) this.consumed.add(i);
      return e;
    }
    return this.script.fallback ?? { steps: [{ reply: "NO SCRIPT ENTRY" }] };
  }
}
