/**
 * The trace format (docs/trace.md): one JSON object per line, one line per event of the run.
 * This zod schema is the format's definition: the reader validates every line with it, the
 * writer's record type is inferred from it, and the tests check written traces against it.
 */
import { z } from "zod";

export const TRACE_VERSION = 1;

const position = z.strictObject({ file: z.string(), line: z.number().int(), column: z.number().int() });
/** The `do` call a think or command ran inside: its think and the `do` call's id. */
const parent = z.strictObject({ think: z.number().int(), do: z.number().int() }).nullable();
const usage = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
  contextTokens: z.number(),
  cost: z.record(z.string(), z.number()),
});
const json: z.ZodType<unknown> = z.unknown();
/** Every record: its type and `t`, milliseconds since the run started (monotonic clock). */
const base = { t: z.number().min(0) };
/** Text cut to the writer's text limit ends with `…`; `length` is the full length. */
const text = { text: z.string(), length: z.number().int().optional() };

export const traceRecord = z.discriminatedUnion("type", [
  z.strictObject({
    ...base,
    type: z.literal("run-start"),
    version: z.literal(TRACE_VERSION),
    program: z.string(),
    cwd: z.string(),
    /** The agent command line; null without an agent. */
    agent: z.string().nullable(),
    mode: z.enum(["agent", "no-agent", "replay"]),
    patchwork: z.string(),
    node: z.string(),
    pid: z.number().int(),
    startedAt: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("run-end"),
    ok: z.boolean(),
    exitCode: z.number().int(),
    durationMs: z.number(),
    cancelled: z.boolean(),
    /** The entry the run called and its return value, when it called one. */
    entry: z.string().optional(),
    value: z.json().optional(),
    /** What the run asked and spent (batch/totals.ts), when it ran through the agent runtime. */
    totals: z
      .strictObject({
        thinks: z.number().int(),
        replayed: z.number().int(),
        retried: z.number().int(),
        failed: z.number().int(),
        inputTokens: z.number().nullable(),
        outputTokens: z.number().nullable(),
        cost: z.record(z.string(), z.number()).nullable(),
        wallMs: z.number(),
      })
      .optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("diagnostic"),
    severity: z.enum(["error", "warning"]),
    code: z.string(),
    message: z.string(),
    at: position.nullable(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("think-start"),
    id: z.number().int(),
    kind: z.enum(["think", "ask"]),
    parent,
    at: position,
    /** The exact prompt the agent received (never cut). */
    prompt: z.string(),
    typeText: z.string().nullable(),
    worker: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("think-repair"),
    id: z.number().int(),
    error: z.string(),
    reply: z.string(),
    message: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("think-end"),
    id: z.number().int(),
    ok: z.boolean(),
    durationMs: z.number(),
    /** The final reply text (never cut). */
    reply: z.string().optional(),
    value: json.optional(),
    error: z.string().optional(),
    repairs: z.number().int(),
    /** Tokens and cost of this think, summed over its `usage` events, when the agent sent any. */
    usage: usage.optional(),
    worker: z.string().optional(),
  }),
  z.strictObject({ ...base, type: z.literal("do-start"), id: z.number().int(), think: z.number().int(), index: z.number().int() }),
  z.strictObject({
    ...base,
    type: z.literal("do-end"),
    id: z.number().int(),
    think: z.number().int(),
    index: z.number().int(),
    ok: z.boolean(),
    durationMs: z.number(),
    /** What the block gave the model (what it printed, else its value), cut to the text limit. */
    output: z.string().optional(),
    outputLength: z.number().int().optional(),
    error: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("shell"),
    command: z.string(),
    status: z.number().int(),
    durationMs: z.number().optional(),
    stdoutLength: z.number().int().optional(),
    stderrLength: z.number().int().optional(),
    at: position,
    parent,
  }),
  z.strictObject({
    ...base,
    type: z.literal("loop-start"),
    loop: z.number().int(),
    at: position,
    variable: z.string(),
    total: z.number().int().nullable(),
    parent,
    worker: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("loop-end"),
    loop: z.number().int(),
    ok: z.boolean(),
    done: z.number().int(),
    durationMs: z.number(),
    worker: z.string().optional(),
  }),
  z.strictObject({ ...base, type: z.literal("delegate-start"), group: z.string(), owner: z.string(), total: z.number().int(), labels: z.array(z.string()) }),
  z.strictObject({ ...base, type: z.literal("delegate-end"), group: z.string(), ok: z.boolean(), durationMs: z.number() }),
  z.strictObject({ ...base, type: z.literal("print"), ...text }),
  z.strictObject({ ...base, type: z.literal("log"), ...text }),
  z.strictObject({
    ...base,
    type: z.literal("agent-started"),
    pid: z.number().int(),
    agentName: z.string().nullable(),
    protocolVersion: z.number(),
    transport: z.string().nullable(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("agent-restarting"),
    pid: z.number().int().nullable(),
    sessions: z.number().int(),
    limit: z.number().int(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("session"),
    think: z.number().int(),
    sessionId: z.string(),
    transport: z.string().nullable(),
    /** The think took a session made ahead of need (docs/agent.md). */
    ahead: z.literal(true).optional(),
  }),
  z.strictObject({ ...base, type: z.literal("session-ahead"), reason: z.enum(["start", "nested", "next"]), worker: z.string().nullable() }),
  z.strictObject({ ...base, type: z.literal("agent-text"), think: z.number().int(), messageId: z.string().nullable(), ...text }),
  z.strictObject({ ...base, type: z.literal("agent-thought"), think: z.number().int(), ...text }),
  z.strictObject({ ...base, type: z.literal("agent-notice"), think: z.number().int(), severity: z.string(), ...text }),
  z.strictObject({
    ...base,
    type: z.literal("tool-call"),
    think: z.number().int(),
    toolCallId: z.string(),
    title: z.string(),
    status: z.string(),
    kind: z.string().optional(),
    /** The call's content (text, diffs, terminals) as text, cut to the text limit. */
    content: z.string().optional(),
    /** The call's input as JSON text, cut to the text limit. */
    input: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal("permission"),
    think: z.number().int().nullable(),
    title: z.string(),
    decision: z.enum(["allow", "deny", "cancelled"]),
  }),
  z.strictObject({ ...base, type: z.literal("usage"), think: z.number().int(), usage }),
  z.strictObject({
    ...base,
    type: z.literal("warning"),
    think: z.number().int().nullable(),
    code: z.string(),
    message: z.string(),
    at: position.nullable(),
  }),
  z.strictObject({ ...base, type: z.literal("anomaly"), code: z.string(), message: z.string() }),
  z.strictObject({ ...base, type: z.literal("agent-stderr"), ...text }),
  /** The run stopped before a think that would have passed its budget (`--max-thinks`, `--budget`). */
  z.strictObject({ ...base, type: z.literal("budget-stop"), kind: z.enum(["thinks", "cost", "tokens"]), limit: z.string(), spent: z.string() }),
]);

export type TraceRecord = z.infer<typeof traceRecord>;
export type TracePosition = z.infer<typeof position>;
