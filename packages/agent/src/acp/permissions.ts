/**
 * `session/request_permission`, answered by a policy: by default allow our own `do` tool
 * and deny anything else; `ask` defers to an injected async callback (the CLI asks on the
 * terminal). Pending requests are answered `cancelled` when the run is cancelled.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { MCP_SERVER_NAME } from "../mcp/do-server.js";
import type { PermissionAnswer, PermissionPolicy, PermissionQuestion } from "../types.js";

export interface PermissionOptions {
  /** One policy for everything, or per kind of tool. Default `{do: "allow", other: "deny"}`. */
  policy?: PermissionPolicy | { do?: PermissionPolicy; other?: PermissionPolicy };
  askPermission?: (question: PermissionQuestion) => Promise<PermissionAnswer>;
  onDecision?: (question: PermissionQuestion, decision: "allow" | "deny" | "cancelled") => void;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

/**
 * Whether a tool call is our `do` tool: by name or title (`do`, `mcp__patchwork__do`,
 * `patchwork/do`, Codex's `Tool: patchwork/do`, …) or by its raw input (Codex: the tool call's
 * `{server, tool}`, its approval request's `{server_name, request: {_meta: {codex_approval_kind}}}`).
 */
export function isDoToolCall(name: string | null | undefined, title: string | null | undefined, rawInput?: unknown): boolean {
  const server = MCP_SERVER_NAME;
  const looksLikeDo = (s: string) => {
    const t = s.trim().replace(/^tool:\s*/i, "");
    return t === "do" || t === `mcp__${server}__do` || t === `${server}/do` || t === `${server}.do` || t === `${server}__do`;
  };
  if ([name, title].some((s) => typeof s === "string" && looksLikeDo(s))) return true;
  if (typeof rawInput !== "object" || rawInput === null) return false;
  const raw = rawInput as { server?: unknown; tool?: unknown; server_name?: unknown; request?: { _meta?: { codex_approval_kind?: unknown } } };
  if (raw.server === server && raw.tool === "do") return true;
  // Our MCP server has one tool, so an approval for a tool of our server is an approval for `do`.
  return raw.server_name === server && raw.request?._meta?.codex_approval_kind === "mcp_tool_call";
}

export class PermissionDesk {
  private readonly pending = new Set<(response: RequestPermissionResponse) => void>();
  private cancelled = false;

  constructor(private readonly options: PermissionOptions) {}

  async handle(params: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const call = params.toolCall;
    const question: PermissionQuestion = {
      sessionId: params.sessionId,
      title: call.title ?? call.name ?? "tool call",
      toolName: call.name ?? null,
      rawInput: call.rawInput,
      isDoTool: isDoToolCall(call.name, call.title, call.rawInput),
      options: params.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    };
    if (this.cancelled) return this.finish(question, "cancelled", params);
    const policy = this.policyFor(question.isDoTool);
    if (policy !== "ask") return this.finish(question, policy, params);
    const ask = this.options.askPermission;
    if (!ask) return this.finish(question, "deny", params);
    const answer = await new Promise<PermissionAnswer | "cancelled">((resolve) => {
      const cancel = () => resolve("cancelled");
      this.pending.add(cancel);
      ask(question).then(
        (a) => resolve(a === "allow" ? "allow" : "deny"),
        () => resolve("deny"),
      ).finally(() => this.pending.delete(cancel));
    });
    return this.finish(question, answer, params);
  }

  /** Answers every pending request `cancelled`, and all later ones too. */
  cancelAll(): void {
    this.cancelled = true;
    for (const cancel of [...this.pending]) cancel(CANCELLED);
    this.pending.clear();
  }

  private policyFor(isDo: boolean): PermissionPolicy {
    const p = this.options.policy;
    if (typeof p === "string") return p;
    return isDo ? p?.do ?? "allow" : p?.other ?? "deny";
  }

  private finish(
    question: PermissionQuestion,
    decision: "allow" | "deny" | "cancelled",
    params: RequestPermissionRequest,
  ): RequestPermissionResponse {
    this.options.onDecision?.(question, decision);
    if (decision === "cancelled") return CANCELLED;
    const kinds = decision === "allow" ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
    for (const kind of kinds) {
      const option = params.options.find((o) => o.kind === kind);
      if (option) return { outcome: { outcome: "selected", optionId: option.optionId } };
    }
    return CANCELLED;
  }
}
