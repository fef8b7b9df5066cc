// The test agent's MCP-over-ACP caller (one per process, shared by the app and the do clients).
import { McpOverAcpCaller } from "@agentclientprotocol/sdk/unstable";

export const acpCaller = new McpOverAcpCaller({ clientInfo: { name: "patchwork-test-agent", version: "0.1.0" } });
