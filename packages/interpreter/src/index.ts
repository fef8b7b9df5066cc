export { AgentError } from "./ports.js";
export type {
  Agent,
  ChildResult,
  Host,
  JsonValue,
  PwEvent,
  RunChild,
  ShellOptions,
  ShellResult,
  ThinkReply,
  ThinkRequest,
} from "./ports.js";
