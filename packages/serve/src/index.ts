/**
 * @patchwork/serve — Patchwork served to other tools, above the agent runtime: the ACP proxy of
 * `patchwork acp` (an agent for the editor's panel in front of another ACP agent). Each server
 * runs programs and entries through the runtime of @patchwork/agent; none has its own evaluator
 * plumbing.
 */
export { serveAcpProxy, stdioStream } from "./proxy/proxy.js";
export type { AcpProxyOptions } from "./proxy/proxy.js";
export { classifyPrompt } from "./proxy/prompts.js";
export type { PromptKind } from "./proxy/prompts.js";
export { kebabCase, pluginName, toolNameOf, toolNames, TOOL_NAME } from "./names.js";
export type { NamedSkill } from "./names.js";
