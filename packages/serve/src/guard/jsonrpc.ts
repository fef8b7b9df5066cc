/**
 * What every Patchwork server (`mcp`, `acp`, `lsp`) checks of a JSON-RPC message before its SDK
 * sees it (docs/security.md, "Servers"): its size, its nesting depth and its shape. A request
 * (a message with an id) that fails is answered with a JSON-RPC error carrying that id, so the
 * client never waits forever; the server says on stderr what it refused and keeps serving.
 */
import { MessageScanner } from "./scan.js";

/** The largest message a server reads (a line of `mcp`/`acp`, a frame's content of `lsp`). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** The deepest nesting of objects and arrays in a message. */
export const MAX_MESSAGE_DEPTH = 256;

export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const PARSE_ERROR = -32700;

export type JsonRpcId = string | number | null;

export interface ErrorResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  error: { code: number; message: string };
}

export interface Limits {
  maxBytes: number;
  maxDepth: number;
  /** `"params": null` passes (LSP clients such as Neovim send it with `shutdown`); else -32602. */
  nullParams?: boolean;
}

export const DEFAULT_LIMITS: Limits = { maxBytes: MAX_MESSAGE_BYTES, maxDepth: MAX_MESSAGE_DEPTH };

/** What to do with one message: pass it on, or answer (`reply`, absent for a notification) and say why on stderr. */
export type Verdict = { ok: true; message: Record<string, unknown> } | { ok: false; reply: ErrorResponse | null; why: string };

export function errorResponse(id: JsonRpcId, code: number, message: string): ErrorResponse {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** `16 MiB`, `256 KiB`, `12 bytes`. */
export function bytesShown(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function idShown(id: JsonRpcId): string {
  return id === null ? "without an id" : `id ${JSON.stringify(id).slice(0, 40)}`;
}

/** The verdict on a message larger than the limit (its bytes were scanned, not kept). */
export function tooLarge(scanner: MessageScanner, size: number, limits: Limits): Verdict & { ok: false } {
  const id = scanner.id();
  const message = `message too large: ${size} bytes, the limit is ${bytesShown(limits.maxBytes)}`;
  return { ok: false, reply: errorResponse(id, INVALID_REQUEST, message), why: `refused a message ${idShown(id)}: ${message}` };
}

/** The verdict on a whole message: its text (already within the size limit) scanned by `scanner`. */
export function check(text: string, scanner: MessageScanner, limits: Limits): Verdict {
  if (scanner.maxDepth > limits.maxDepth) {
    const id = scanner.id();
    const message = `message nested too deeply: ${scanner.maxDepth} levels, the limit is ${limits.maxDepth}`;
    return { ok: false, reply: errorResponse(id, INVALID_REQUEST, message), why: `refused a message ${idShown(id)}: ${message}` };
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    const why = `not JSON (${(error as Error).message.slice(0, 120)})`;
    return { ok: false, reply: errorResponse(scanner.id(), PARSE_ERROR, `parse error: ${why}`), why: `refused a message: ${why}` };
  }
  return checkShape(message, limits.nullParams === true);
}

/**
 * JSON-RPC 2.0's rules for a message: an object with `jsonrpc: "2.0"`; a request or
 * notification has a string `method` and `params`, when present, an object or array; an id is a
 * string or a number. Responses pass (the SDK matches them to its requests).
 */
export function checkShape(message: unknown, nullParams = false): Verdict {
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    const what = Array.isArray(message) ? "a batch (an array): batches are not supported" : `not an object`;
    return { ok: false, reply: errorResponse(null, INVALID_REQUEST, `invalid request: ${what}`), why: `refused a message: ${what}` };
  }
  const m = message as Record<string, unknown>;
  const hasId = "id" in m;
  const validId = typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id));
  const id: JsonRpcId = validId ? (m.id as string | number) : null;
  const isResponse = !("method" in m) && ("result" in m || "error" in m);
  const refuse = (code: number, what: string): Verdict => ({
    ok: false,
    reply: hasId ? errorResponse(id, code, `invalid request: ${what}`) : null,
    why: `refused a ${hasId ? `request ${idShown(id)}` : "notification"}: ${what}`,
  });
  if (m.jsonrpc !== "2.0") return refuse(INVALID_REQUEST, `"jsonrpc" must be "2.0", not ${JSON.stringify(m.jsonrpc)?.slice(0, 40) ?? "missing"}`);
  if (isResponse) return { ok: true, message: m };
  if (hasId && !validId && m.id !== null) return refuse(INVALID_REQUEST, `"id" must be a string or a number`);
  if (typeof m.method !== "string") return refuse(INVALID_REQUEST, `"method" must be a string`);
  if ("params" in m && !(m.params === null && nullParams) && (m.params === null || typeof m.params !== "object"))
    return refuse(INVALID_PARAMS, `"params" of ${m.method.slice(0, 60)} must be an object or an array, not ${m.params === null ? "null" : typeof m.params}`);
  return { ok: true, message: m };
}
