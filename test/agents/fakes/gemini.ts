/**
 * A fake Gemini API (Generative Language API v1beta, what Gemini CLI talks to with
 * GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY), driven by rules (server.ts).
 *
 *   POST /v1beta/models/M:streamGenerateContent?alt=sse   SSE: one `data:` event per part
 *   POST /v1beta/models/M:generateContent                 JSON (the CLI's side requests)
 *   POST /v1beta/models/M:countTokens                     {"totalTokens": 42}
 *   anything else                                         404 (logged)
 *
 * Gemini CLI offers an MCP tool as `mcp_<server>_<tool>`: our `do` tool is `mcp_patchwork_do`.
 * The latest content is the last `user` content: its text parts (not the CLI's
 * `<session_context>`) and the text of its functionResponse parts. A request with a JSON
 * response schema is a side request (the CLI's model router asks a flash-lite model for a
 * complexity score before each turn; its next-speaker check asks who speaks next): it gets an
 * answer that fits the schema, never a rule's reply.
 */
import type { ServerResponse } from "node:http";
import { startFakeServer, type Decision, type FakeApi, type ModelRequest, type Rule } from "./server.js";

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args?: unknown };
  functionResponse?: { name: string; response?: { output?: unknown; error?: unknown; content?: unknown } };
}
interface GenerateBody {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: Schema; responseSchema?: Schema };
}
interface Schema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
}

/**
 * The text a function response carries. Gemini CLI wraps an MCP tool's output in
 * `<untrusted_context>…</untrusted_context>`: unwrapped, so rules match what the block printed
 * the same way for every agent.
 */
function responseText(part: NonNullable<Part["functionResponse"]>): string {
  const r = part.response ?? {};
  if (typeof r.output === "string") return r.output.replace(/^<untrusted_context>\n?([\s\S]*?)\n*<\/untrusted_context>$/, "$1");
  if (typeof r.error === "string") return r.error;
  return JSON.stringify(r);
}

export function geminiRequest(body: GenerateBody): ModelRequest {
  const tools = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
  const last = body.contents?.findLast((c) => c.role === "user");
  const parts = last?.parts ?? [];
  const results = parts.filter((p) => p.functionResponse);
  const latest = parts
    .map((p) => (p.functionResponse ? responseText(p.functionResponse) : p.text?.startsWith("<session_context>") ? "" : p.text ?? ""))
    .filter(Boolean)
    .join("\n");
  const config = body.generationConfig ?? {};
  return {
    latest,
    afterTool: results.length > 0,
    toolError: results.some((p) => p.functionResponse?.response?.error !== undefined),
    tools,
    doTool: tools.find((n) => /^mcp_.+_do$/.test(n)),
    side: Boolean(config.responseJsonSchema ?? config.responseSchema) || config.responseMimeType === "application/json",
  };
}

/**
 * An answer fitting a side request's schema: the router's `{complexity_reasoning,
 * complexity_score}` (a low score: the default flash model), the next-speaker check's
 * `{next_speaker: "user"}` (the turn is over); anything else a filled-in shape.
 */
export function sideAnswer(schema: Schema | undefined): unknown {
  const known: Record<string, unknown> = { next_speaker: "user", complexity_score: 10, complexity_reasoning: "a simple request" };
  const fill = (s: Schema | undefined): unknown => {
    const type = String(s?.type ?? "").toLowerCase();
    if (Array.isArray(s?.enum)) return s.enum[0];
    if (type === "object") return Object.fromEntries(Object.entries(s?.properties ?? {}).map(([k, v]) => [k, k in known ? known[k] : fill(v)]));
    if (type === "array") return [];
    if (type === "integer" || type === "number") return 1;
    if (type === "boolean") return false;
    return "fake";
  };
  return fill(schema ?? { type: "object" });
}

function partsOf(decision: Decision): Part[] {
  if (decision.kind === "text") return [{ text: decision.text }];
  const call = { functionCall: { name: decision.name, args: decision.input } };
  return decision.preamble ? [{ text: decision.preamble }, call] : [call];
}

function chunk(parts: Part[], model: string, last: boolean) {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
    modelVersion: model,
  };
}

function reply(res: ServerResponse, parts: Part[], model: string, stream: boolean): void {
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(chunk(parts, model, true)));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  parts.forEach((part, i) => res.write(`data: ${JSON.stringify(chunk([part], model, i === parts.length - 1))}\r\n\r\n`));
  res.end();
}

/** Starts the fake on a random port of 127.0.0.1. */
export function startFakeGemini(rules: Rule[]): Promise<FakeApi> {
  return startFakeServer({
    rules,
    route(entry, res, book, _later, failed) {
      const action = /\/models\/([^/:]+):(\w+)$/.exec(entry.path);
      if (entry.method !== "POST" || !action || !entry.body || typeof entry.body !== "object") return false;
      const [, model, method] = action;
      if (method === "countTokens") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ totalTokens: 42 }));
        return true;
      }
      if (method !== "generateContent" && method !== "streamGenerateContent") return false;
      const body = entry.body as GenerateBody;
      entry.model = geminiRequest(body);
      if (!entry.model.side && failed(entry, res)) return true;
      if (entry.model.side) {
        const config = body.generationConfig ?? {};
        const text = JSON.stringify(sideAnswer(config.responseJsonSchema ?? config.responseSchema));
        entry.decision = { kind: "text", text, rule: -1, why: "side request" };
      } else entry.decision = book.decide(entry.model);
      const decision = entry.decision;
      setTimeout(() => reply(res, partsOf(decision), model!, method === "streamGenerateContent"), decision.delayMs ?? 0);
      return true;
    },
    notFound: (e) => ({ error: { code: 404, message: `fake Gemini API: no ${e.method} ${e.path}`, status: "NOT_FOUND" } }),
    // As Google's APIs word them: 429 RESOURCE_EXHAUSTED, 503 UNAVAILABLE, 500 INTERNAL.
    errorBody: (status) => ({
      error: {
        code: status,
        message: status === 429 ? "Resource has been exhausted (e.g. check quota)." : status === 500 ? "Internal error encountered." : "The model is overloaded. Please try again later.",
        status: status === 429 ? "RESOURCE_EXHAUSTED" : status === 500 ? "INTERNAL" : "UNAVAILABLE",
      },
    }),
  });
}
