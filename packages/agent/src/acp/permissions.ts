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

/** Whether a tool call is our `do` tool (`do`, `mcp__patchwork__do`, `patchwork/do`, …). */
export function isDoToolCall(name: string | null | undefined, title: string | null | undefined): boolean {
  const server = MCP_SERVER_NAME;
  const looksLikeDo = (s: string) =>
    s === "do" || s === `mcp__${server}__do` || s === `${server}/do` || s === `${server}.do` || s === `${server}__do`;
  return [name, title].some((s) => typeof s === "string" && looksLikeDo(s.trim()));
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
      isDoTool: isDoToolCall(call.name, call.title),
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
