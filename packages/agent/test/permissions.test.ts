// Permission identity: our `do` tool is recognised by what each agent fills in from the tool
// it actually runs (shapes taken from the real adapters: claude-agent-acp 0.101, codex-acp
// 2.6.0, gemini-cli 0.61), never by a title; everything else is denied by default, also
// through a real agent process.
import { describe, expect, it } from "vitest";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import { PermissionDesk, ToolCallLedger } from "../dist/acp/permissions.js";
import { genericProfile, isOurDoTool, profileFor, type AgentProfile, type PermissionToolCall } from "../dist/index.js";
import { print, runThreadbare, think } from "./helpers.js";

const profile = (name: string) => profileFor({ protocolVersion: 1, agentInfo: { name, version: "1" } } as never);
const claude = profile("@agentclientprotocol/claude-agent-acp");
const codex = profile("@agentclientprotocol/codex-acp");
const gemini = profile("gemini-cli");

const call = (toolCall: object, extra: Partial<PermissionToolCall> = {}): PermissionToolCall => ({
  toolCall: { toolCallId: "t1", ...toolCall },
  requestMeta: undefined,
  announced: undefined,
  ...extra,
});
const ours = (p: AgentProfile, c: PermissionToolCall) => isOurDoTool(p, c, "patchwork");

describe("our do tool, per agent", () => {
  it("picks the profile by agentInfo.name", () => {
    expect([claude.name, codex.name, gemini.name, profile("something-else").name]).toEqual(["claude", "codex", "gemini", "generic"]);
  });

  it("claude: _meta.claudeCode.toolName, never the title", () => {
    expect(ours(claude, call({ title: "do", _meta: { claudeCode: { toolName: "mcp__patchwork__do" } } }))).toBe(true);
    expect(ours(claude, call({ title: "mcp__patchwork__do", _meta: { claudeCode: { toolName: "Bash" } } }))).toBe(false);
    expect(ours(claude, call({ title: "mcp__patchwork__do", kind: "other" }))).toBe(false);
    expect(ours(claude, call({ _meta: { claudeCode: { toolName: "mcp__other__do" } } }))).toBe(false);
    expect(ours(claude, call({ _meta: { claudeCode: { toolName: "mcp__patchwork__do_x" } } }))).toBe(false);
  });

  it("gemini: the call id Gemini CLI derives from the tool's registry name", () => {
    const request = { toolCallId: "mcp_patchwork_do__synth_1_1", title: "do (patchwork MCP Server)", kind: "other" };
    expect(ours(gemini, call(request))).toBe(true);
    expect(ours(gemini, call({ toolCallId: "run_shell_command__12", title: "do (patchwork MCP Server)" }))).toBe(false);
    expect(ours(gemini, call({ toolCallId: "mcp_other_do__1", title: "do" }))).toBe(false);
  });

  it("codex: the announced MCP call {server, tool}, its uncorrelated approval, the older elicitation shape", () => {
    const announced = { toolCallId: "call_1", title: "mcp.patchwork.do", kind: "execute" as const, rawInput: { server: "patchwork", tool: "do", arguments: { number: 0 } } };
    const approval = { toolCallId: "call_1", kind: "execute", status: "pending" };
    expect(ours(codex, call(approval, { announced, requestMeta: { is_mcp_tool_approval: true } }))).toBe(true);
    expect(ours(codex, call(approval, { announced: { ...announced, rawInput: { server: "other", tool: "do" } } }))).toBe(false);
    expect(ours(codex, call(approval))).toBe(false);
    const standalone = { toolCallId: "elicitation:s1:patchwork:1", kind: "execute", title: "MCP tool call approval", rawInput: { serverName: "patchwork", description: "Run do?" } };
    expect(ours(codex, call(standalone, { requestMeta: { is_mcp_tool_approval: true } }))).toBe(true);
    expect(ours(codex, call(standalone))).toBe(false);
    expect(ours(codex, call({ ...standalone, rawInput: { serverName: "fs" } }, { requestMeta: { is_mcp_tool_approval: true } }))).toBe(false);
    const older = (server_name: string, kind: string) => ({ server_name, request: { _meta: { codex_approval_kind: kind } } });
    expect(ours(codex, call({ title: "Approve", rawInput: older("patchwork", "mcp_tool_call") }))).toBe(true);
    expect(ours(codex, call({ title: "Approve", rawInput: older("patchwork", "exec_command") }))).toBe(false);
    expect(ours(codex, call({ title: "Tool: patchwork/do" }))).toBe(false);
  });

  it("generic: the server-qualified programmatic name only; no bare do, no title, no raw input", () => {
    expect(ours(genericProfile, call({ name: "mcp__patchwork__do" }))).toBe(true);
    expect(ours(genericProfile, call({ title: "x" }, { announced: { toolCallId: "t1", name: "patchwork/do" } }))).toBe(true);
    expect(ours(genericProfile, call({ name: "do", title: "do" }))).toBe(false);
    expect(ours(genericProfile, call({ title: "mcp__patchwork__do" }))).toBe(false);
    expect(ours(genericProfile, call({ title: "x", rawInput: { server: "patchwork", tool: "do" } }))).toBe(false);
    expect(ours(genericProfile, call({ toolCallId: "mcp_patchwork_do__1" }))).toBe(false);
  });
});

describe("the permission desk", () => {
  const options = [
    { optionId: "yes", name: "Allow", kind: "allow_once" as const },
    { optionId: "no", name: "Reject", kind: "reject_once" as const },
  ];
  const desk = () => new PermissionDesk({ isOurDoTool: (p) => isOurDoTool(genericProfile, call(p.toolCall), "patchwork") });

  it("allows our tool, denies anything else, and denies when the identity check throws", async () => {
    const ask = (toolCall: object) => desk().handle({ sessionId: "s", toolCall: toolCall as never, options } as RequestPermissionRequest);
    expect(await ask({ toolCallId: "1", name: "mcp__patchwork__do" })).toEqual({ outcome: { outcome: "selected", optionId: "yes" } });
    expect(await ask({ toolCallId: "2", title: "do" })).toEqual({ outcome: { outcome: "selected", optionId: "no" } });
    const throwing = new PermissionDesk({ isOurDoTool: () => { throw new Error("bad"); } });
    const r = await throwing.handle({ sessionId: "s", toolCall: { toolCallId: "3", name: "mcp__patchwork__do" }, options });
    expect(r).toEqual({ outcome: { outcome: "selected", optionId: "no" } });
  });

  it("the ledger merges what a session announced per tool call and forgets ended sessions", () => {
    const ledger = new ToolCallLedger();
    ledger.note("s", { sessionUpdate: "tool_call", toolCallId: "c", title: "mcp.patchwork.do", rawInput: { server: "patchwork", tool: "do" } });
    ledger.note("s", { sessionUpdate: "tool_call_update", toolCallId: "c", status: "in_progress" });
    expect(ledger.lookup("s", "c")).toEqual({ toolCallId: "c", title: "mcp.patchwork.do", status: "in_progress", rawInput: { server: "patchwork", tool: "do" } });
    expect(ledger.calls("s").map((c) => c.toolCallId)).toEqual(["c"]);
    expect(ledger.claim("s", "c")).toBe(true);
    expect(ledger.claim("s", "c")).toBe(false);
    expect(ledger.lookup("t", "c")).toBeUndefined();
    ledger.forget("s");
    expect(ledger.lookup("s", "c")).toBeUndefined();
    expect(ledger.isClaimed("s", "c")).toBe(false);
  });
});

describe("through a real agent process (default policy)", () => {
  it("a tool titled do, patchwork/do or mcp__patchwork__do is denied; the one named mcp__patchwork__do is allowed", async () => {
    const run = await runThreadbare(think("go", [print("B0")]), {
      prompts: [
        {
          steps: [
            { permission: "do" },
            { text: "a={{permission}} " },
            { permission: "patchwork/do", rawInput: { server: "patchwork", tool: "do" } },
            { text: "b={{permission}} " },
            { permission: "Run", meta: { claudeCode: { toolName: "mcp__patchwork__do" } } },
            { text: "c={{permission}} " },
            { permission: "mcp__patchwork__do", name: "mcp__patchwork__do" },
            { reply: "d={{permission}}" },
          ],
        },
      ],
    });
    expect(run.exitCode).toBe(0);
    expect(run.value).toBe("a=reject b=reject c=allow d=allow");
    const decisions = run.events.flatMap((e) => (e.type === "permission" ? [`${e.title}:${e.decision}`] : []));
    expect(decisions).toEqual(["do:deny", "patchwork/do:deny", "Run:allow", "mcp__patchwork__do:allow"]);
  });
});
