/**
 * @patchwork/serve — Patchwork served to other tools, above the agent runtime: the ACP proxy of
 * `patchwork acp` (an agent for the editor's panel in front of another ACP agent), the MCP
 * server of `patchwork mcp` (`serveMcp`: every skill and command of .pw files a tool) and the
 * Claude Code plugin writer of `patchwork plugin` (`writePlugin`: a plugin whose skills that
 * server offers, named by the same `servedEntries`). Each server
 * runs programs and entries through the runtime of @patchwork/agent; none has its own evaluator
 * plumbing.
 */
export { serveAcpProxy, stdioStream } from "./proxy/proxy.js";
export type { AcpProxyOptions } from "./proxy/proxy.js";
export { classifyPrompt } from "./proxy/prompts.js";
export type { PromptKind } from "./proxy/prompts.js";
export { kebabCase, pluginName, toolNameOf, toolNames, TOOL_NAME } from "./names.js";
export type { NamedSkill } from "./names.js";
export { serveMcp, MCP_SERVE_NAME } from "./mcp/server.js";
export type { McpServeOptions, McpServerHandle } from "./mcp/server.js";
export { buildCatalog, pwFiles } from "./mcp/catalog.js";
export type { Catalog, McpTool } from "./mcp/catalog.js";
export { SamplingAgent } from "./mcp/sampling.js";
export type { SamplingAgentOptions } from "./mcp/sampling.js";
export { servedEntries, entryDoc } from "./served.js";
export type { ServedEntry, ServedFile, EntryDoc } from "./served.js";
export { writePlugin } from "./plugin/write.js";
export type { PluginOptions, PluginResult } from "./plugin/write.js";
export { PluginError } from "./plugin/sources.js";
export { fileHeader } from "./plugin/header.js";
export type { FileHeader } from "./plugin/header.js";
export { claudeToolName } from "./plugin/render.js";
