/**
 * What every fake model API of the real-agent suite shares: the HTTP shell on 127.0.0.1 (reads
 * and logs every request, hands it to the API's router) and the rules that decide each model
 * reply. One fake per model API (anthropic.ts, openai.ts for the Responses API, gemini.ts, and
 * chat.ts for the OpenAI-compatible Chat Completions API of OpenCode, Qwen Code and Copilot CLI)
 * turns its request body into a `ModelRequest` and renders the chosen `Reply` in its own wire
 * format.
 *
 * A rule matches on the latest user or tool-result content of a request (what the agent just
 * sent the model) and replies with a final text, a call of our `do` tool (optionally after a
 * preamble text, as real models do), or a call of any other tool. A request no rule matches,
 * and every side request of the agent (e.g. a session title), gets `DEFAULT_TEXT`.
 */
import { createServer, type ServerResponse } from "node:http";

/** What the model is asked to reply to, in terms common to every API. */
export interface ModelRequest {
  /** The text of the latest user message or tool results (blocks joined with "\n"). */
  latest: string;
  /** Whether the latest content holds tool results (the model called a tool last). */
  afterTool: boolean;
  /** Whether one of those tool results is an error. */
  toolError: boolean;
  /** Names of the tools offered to the model. */
  tools: string[];
  /** The name under which our `do` tool is offered, if it is. */
  doTool?: string;
  /**
   * A request the agent makes for itself, not for the think's turn (Claude Code's session
   * title: no tools offered). It gets `DEFAULT_TEXT`; rules never see it.
   */
  side?: boolean;
}

export type Reply =
  /** A final answer. */
  | { text: string }
  /** Calls our `do` tool with `{number: call}`, after `preamble` text if given. */
  | { call: number; preamble?: string }
  /** Calls another tool (e.g. a shell tool the agent asks permission for). */
  | { tool: string; input: Record<string, unknown>; preamble?: string };

export interface Rule {
  /** The latest content must contain this string, or match this pattern. Omitted: anything. */
  when?: string | RegExp;
  /** Only when the latest content is (true) or is not (false) a tool result. */
  afterTool?: boolean;
  reply: Reply | ((request: ModelRequest) => Reply);
  /** How many times the rule may fire (default: no limit). */
  times?: number;
  /** Hold the reply back this long (e.g. to interrupt a run while the model "thinks"). */
  delayMs?: number;
}

export const DEFAULT_TEXT = "OK";

/** A reply resolved for a request: `call` resolved to the offered tool's name. */
export type Decision = (
  | { kind: "text"; text: string }
  | { kind: "tool"; name: string; input: Record<string, unknown>; preamble?: string }
) & { rule: number; why: string; delayMs?: number };

export class RuleBook {
  /** How many times each rule fired. */
  readonly hits: number[];

  constructor(readonly rules: Rule[]) {
    this.hits = rules.map(() => 0);
  }

  decide(request: ModelRequest): Decision {
    if (request.side) return { kind: "text", text: DEFAULT_TEXT, rule: -1, why: "side request" };
    const index = this.rules.findIndex((rule, i) => this.applies(rule, i, request));
    if (index < 0) return { kind: "text", text: DEFAULT_TEXT, rule: -1, why: "no rule matched" };
    this.hits[index]++;
    const rule = this.rules[index];
    const reply = typeof rule.reply === "function" ? rule.reply(request) : rule.reply;
    const base = { rule: index, why: `rule ${index}`, delayMs: rule.delayMs };
    if ("text" in reply) return { kind: "text", text: reply.text, ...base };
    if ("tool" in reply) return { kind: "tool", name: reply.tool, input: reply.input, preamble: reply.preamble, ...base };
    if (!request.doTool) {
      const text = `(fake API: rule ${index} calls do(${reply.call}), but no do tool was offered: ${request.tools.join(", ")})`;
      return { kind: "text", text, ...base, why: "do tool not offered" };
    }
    return { kind: "tool", name: request.doTool, input: { number: reply.call }, preamble: reply.preamble, ...base };
  }

  private applies(rule: Rule, i: number, request: ModelRequest): boolean {
    if (rule.times !== undefined && this.hits[i] >= rule.times) return false;
    if (rule.afterTool !== undefined && rule.afterTool !== request.afterTool) return false;
    if (rule.when === undefined) return true;
    return typeof rule.when === "string" ? request.latest.includes(rule.when) : rule.when.test(request.latest);
  }
}

/** One request the fake saw; `model` and `decision` are set for model requests. */
export interface LoggedRequest {
  time: number;
  method: string;
  path: string;
  body: unknown;
  status: number;
  model?: ModelRequest;
  decision?: Decision;
}

/**
 * A model outage (the retry tests): every model request within `ms` of the first one after
 * `outage()` was called is answered with HTTP `status` and the API's own error body, with a
 * `retry-after` header when `retryAfterS` is given.
 */
export interface Outage {
  ms: number;
  status: 429 | 500 | 503 | 529;
  retryAfterS?: number;
}

export interface FakeApi {
  url: string;
  /** Starts an outage at the next model request (see `Outage`). */
  outage(outage: Outage): void;
  /** Model requests answered with the outage's error so far. */
  readonly failed: number;
  port: number;
  /** Every request, in order of arrival. */
  requests: LoggedRequest[];
  /** The requests that asked the model for a reply. */
  modelRequests(): LoggedRequest[];
  rules: RuleBook;
  close(): Promise<void>;
}

/**
 * `route(entry, res)` answers a request and returns true, or returns false for a 404 with
 * `notFound(entry)` as its JSON body. A model request sets `entry.model` and `entry.decision`.
 */
export interface FakeServerOptions {
  rules: Rule[];
  route(entry: LoggedRequest, res: ServerResponse, rules: RuleBook, later: Later, failed: Failed): boolean;
  notFound(entry: LoggedRequest): unknown;
  /** The API's error body for an HTTP status of an outage. */
  errorBody(status: number): unknown;
  onRequest?(entry: LoggedRequest): void;
}

/** Answers a model request with the outage's error and returns true while an outage lasts; else false. */
export type Failed = (entry: LoggedRequest, res: ServerResponse) => boolean;

/** Runs `fn` after `ms` (a rule's `delayMs`), unless the server is closed first. */
export type Later = (ms: number | undefined, fn: () => void) => void;

export async function startFakeServer(options: FakeServerOptions): Promise<FakeApi> {
  const rules = new RuleBook(options.rules);
  const requests: LoggedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later: Later = (ms, fn) => {
    if (!ms) return fn();
    const timer = setTimeout(() => (timers.delete(timer), fn()), ms);
    timers.add(timer);
  };
  let outage: (Outage & { from: number | null }) | null = null;
  let failedCount = 0;
  const failed: Failed = (entry, res) => {
    if (!outage) return false;
    outage.from ??= Date.now();
    if (Date.now() - outage.from >= outage.ms) return false;
    failedCount++;
    entry.status = outage.status;
    res.writeHead(outage.status, {
      "content-type": "application/json",
      ...(outage.retryAfterS !== undefined ? { "retry-after": String(outage.retryAfterS) } : {}),
    });
    res.end(JSON.stringify(options.errorBody(outage.status)));
    return true;
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {}
    const path = (req.url ?? "/").split("?")[0];
    const entry: LoggedRequest = { time: Date.now(), method: req.method ?? "GET", path, body, status: 200 };
    requests.push(entry);
    if (!options.route(entry, res, rules, later, failed)) {
      entry.status = 404;
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify(options.notFound(entry)));
    }
    options.onRequest?.(entry);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("fake API: no port");
  return {
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    requests,
    outage: (o) => void (outage = { ...o, from: null }),
    get failed() {
      return failedCount;
    },
    modelRequests: () => requests.filter((r) => r.model),
    rules,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Text of a value that may be a string or a list of content blocks with `text`. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c) => (c && typeof c === "object" && typeof (c as { text?: unknown }).text === "string" ? (c as { text: string }).text : ""))
    .filter(Boolean)
    .join("\n");
}
