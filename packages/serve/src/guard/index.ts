/** `@patchwork/serve/guard`: the checks every server applies to a JSON-RPC message before its SDK reads it (jsonrpc.ts). */
export { MessageScanner } from "./scan.js";
export {
  bytesShown,
  check,
  checkShape,
  DEFAULT_LIMITS,
  errorResponse,
  INVALID_PARAMS,
  INVALID_REQUEST,
  MAX_MESSAGE_BYTES,
  MAX_MESSAGE_DEPTH,
  PARSE_ERROR,
  tooLarge,
  type ErrorResponse,
  type JsonRpcId,
  type Limits,
  type Verdict,
} from "./jsonrpc.js";
export { guardedLines, LineGuard, type GuardOptions } from "./lines.js";
