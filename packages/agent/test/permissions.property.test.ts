// Property: under the default policy, a permission request is allowed only when it carries
// our structured identity for the agent at hand. Titles, ids, raw inputs and _meta are
// random (salted with every spelling of "do" an agent or a model might use); only the field
// the profile trusts is kept away from the identity, and then the desk must deny.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import { PermissionDesk } from "../dist/acp/permissions.js";
import { genericProfile, isOurDoTool, profileFor, type AgentProfile } from "../dist/index.js";

const SPELLINGS = [
  "do", "Do", " do ", "mcp__patchwork__do", "patchwork/do", "patchwork.do", "patchwork__do", "Tool: patchwork/do",
  "mcp.patchwork.do", "do (patchwork MCP Server)", "mcp_patchwork_do", "mcp_patchwork_do__1", "patchwork",
  "elicitation:s:patchwork:1", "mcp__patchwork__do ", "MCP__PATCHWORK__DO",
];
const text = fc.oneof(fc.constantFrom(...SPELLINGS), fc.string(), fc.constantFrom(...SPELLINGS).chain((s) => fc.string().map((t) => s + t)));
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.oneof(fc.constantFrom("server", "tool", "serverName", "server_name", "request", "_meta", "codex_approval_kind", "claudeCode", "toolName", "name"), fc.string()), tie("value"), { maxKeys: 4 }),
  ),
})).value;
const kinds = fc.constantFrom(undefined, "other", "execute", "read", "edit", "fetch", "think");
/** A JSON value with some keys pinned, e.g. a raw input that names our server and tool. */
const salted = fc.oneof(json, fc.record({ server: text, tool: text, arguments: json }), fc.record({ serverName: text, description: text }),
  fc.record({ server_name: text, request: fc.record({ _meta: fc.record({ codex_approval_kind: fc.constantFrom("mcp_tool_call", "exec") }) }) }));

interface Shape {
  toolCallId: string;
  title?: string;
  name?: string;
  kind?: string;
  rawInput?: unknown;
  _meta?: Record<string, unknown>;
}
const toolCall: fc.Arbitrary<Shape> = fc.record(
  {
    toolCallId: text,
    title: text,
    name: text,
    kind: kinds,
    rawInput: salted,
    _meta: fc.oneof(fc.dictionary(fc.string(), json, { maxKeys: 2 }), fc.record({ claudeCode: fc.record({ toolName: text }) })),
  },
  { requiredKeys: ["toolCallId"] },
);

const options = [
  { optionId: "allow", name: "Allow", kind: "allow_once" as const },
  { optionId: "reject", name: "Reject", kind: "reject_once" as const },
];

async function decide(profile: AgentProfile, call: Shape, announced: Shape | undefined, requestMeta: Record<string, unknown> | undefined) {
  const desk = new PermissionDesk({
    isOurDoTool: (p) => isOurDoTool(profile, { toolCall: p.toolCall, requestMeta: p._meta, announced: announced as never }, "patchwork"),
  });
  const params = { sessionId: "s", toolCall: call, options, ...(requestMeta ? { _meta: requestMeta } : {}) } as RequestPermissionRequest;
  const response = await desk.handle(params);
  return response.outcome.outcome === "selected" ? response.outcome.optionId : "cancelled";
}

const profile = (name: string) => profileFor({ protocolVersion: 1, agentInfo: { name, version: "1" } } as never);
const requestMeta = fc.option(fc.record({ is_mcp_tool_approval: fc.boolean() }), { nil: undefined });

/** Removes what each profile trusts from a random tool call (everything else stays random). */
const withoutIdentity: Record<string, (c: Shape) => Shape> = {
  claude: (c) => ({ ...c, _meta: c._meta && notClaude(c._meta) }),
  gemini: (c) => ({ ...c, toolCallId: c.toolCallId.startsWith("mcp_patchwork_do__") ? `x${c.toolCallId}` : c.toolCallId }),
  codex: (c) => ({ ...c, rawInput: notCodex(c.rawInput) }),
  generic: (c) => ({ ...c, name: ourName(c.name) ? `${c.name}!` : c.name, _meta: c._meta && notClaude(c._meta) }),
};
const ourName = (n: unknown) => ["mcp__patchwork__do", "patchwork__do", "patchwork/do", "patchwork.do"].includes(n as string);
function notClaude(meta: Record<string, unknown>): Record<string, unknown> {
  const code = meta.claudeCode as { toolName?: unknown } | undefined;
  return ourName(code?.toolName) ? { ...meta, claudeCode: { toolName: `${String(code!.toolName)}x` } } : meta;
}
function notCodex(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null) return raw;
  const r = raw as Record<string, unknown>;
  const bump = (k: string) => (r[k] === "patchwork" ? { [k]: "patchworks" } : {});
  return { ...r, ...bump("server"), ...bump("serverName"), ...bump("server_name") };
}

describe("default policy: nothing but our structured identity is ever allowed", () => {
  const profiles: [string, AgentProfile][] = [
    ["claude", profile("@agentclientprotocol/claude-agent-acp")],
    ["codex", profile("@agentclientprotocol/codex-acp")],
    ["gemini", profile("gemini-cli")],
    ["generic", genericProfile],
  ];
  for (const [name, p] of profiles) {
    it(`${name}: random titles, ids, raw inputs and _meta without its identity are denied`, async () => {
      const strip = withoutIdentity[name]!;
      await fc.assert(
        fc.asyncProperty(toolCall, fc.option(toolCall, { nil: undefined }), requestMeta, async (call, announced, meta) => {
          const c = strip(call);
          const a = announced && strip({ ...announced, toolCallId: c.toolCallId });
          expect(await decide(p, c, a, meta)).toBe("reject");
        }),
      );
    });
  }

  it("the same random calls are allowed once they carry the identity (the property can fail)", async () => {
    const identities: [AgentProfile, (c: Shape) => Shape][] = [
      [profiles[0]![1], (c) => ({ ...c, _meta: { claudeCode: { toolName: "mcp__patchwork__do" } } })],
      [profiles[1]![1], (c) => ({ ...c, rawInput: { server: "patchwork", tool: "do" } })],
      [profiles[2]![1], (c) => ({ ...c, toolCallId: `mcp_patchwork_do__${c.toolCallId}` })],
      [profiles[3]![1], (c) => ({ ...c, name: "mcp__patchwork__do" })],
    ];
    await fc.assert(
      fc.asyncProperty(toolCall, fc.nat(3), async (call, i) => {
        const [p, mark] = identities[i]!;
        expect(await decide(p, mark(call), undefined, undefined)).toBe("allow");
      }),
      { numRuns: 50 },
    );
  });
});
