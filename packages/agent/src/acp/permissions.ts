/**
 * `session/request_permission`, answered by a policy: by default allow our own `do` tool
 * (recognised by the agent profile from fields the model cannot write, never by title)
 * and deny anything else; `ask` defers to an injected async callback (the CLI asks on the
 * terminal). Pending requests are answered `cancelled` when the run is cancelled.
 */
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk/unstable";
import type { PermissionAnswer, PermissionPolicy, PermissionQuestion } from "../types.js";

export interface PermissionOptions {
  /** One policy for everything, or per kind of tool. Default `{do: "allow", other: "deny"}`. */
  policy?: PermissionPolicy | { do?: PermissionPolicy; other?: PermissionPolicy };
  askPermission?: (question: PermissionQuestion) => Promise<PermissionAnswer>;
  onDecision?: (question: PermissionQuestion, decision: "allow" | "deny" | "cancelled") => void;
  /** Whether the request is for our own `do` tool (the agent profile's structural check). */
  isOurDoTool: (params: RequestPermissionRequest) => boolean;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

/**
 * The tool calls each session announced (`tool_call`, `tool_call_update`), reduced to the
 * fields an identity check reads, so that a permission request naming only a `toolCallId`
 * (Codex) can be matched with what the agent said about that call. Fed as notifications
 * arrive, which is before any later request on the same connection.
 */
export class ToolCallLedger {
  private readonly sessions = new Map<string, Map<string, ToolCallUpdate>>();
  /** Tool calls already matched with a `do` call that reached a directory-wide endpoint. */
  private readonly claimed = new Map<string, Set<string>>();
  private readonly listeners = new Set<() => void>();

  note(sessionId: string, update: SessionUpdate): void {
    if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") return;
    let calls = this.sessions.get(sessionId);
    if (!calls) this.sessions.set(sessionId, (calls = new Map()));
    const known = calls.get(update.toolCallId) ?? { toolCallId: update.toolCallId };
    const merged: ToolCallUpdate = { ...known };
    for (const key of ["name", "title", "kind", "status", "rawInput", "_meta"] as const) {
      if (update[key] !== undefined && update[key] !== null) (merged as Record<string, unknown>)[key] = update[key];
    }
    calls.set(update.toolCallId, merged);
    for (const listener of [...this.listeners]) listener();
  }

  /** The tool calls session `sessionId` announced so far, in order. */
  calls(sessionId: string): ToolCallUpdate[] {
    return [...(this.sessions.get(sessionId)?.values() ?? [])];
  }

  /** Marks a call as matched with a `do` call that reached us; false if it already was. */
  claim(sessionId: string, toolCallId: string): boolean {
    let claimed = this.claimed.get(sessionId);
    if (!claimed) this.claimed.set(sessionId, (claimed = new Set()));
    if (claimed.has(toolCallId)) return false;
    claimed.add(toolCallId);
    return true;
  }

  isClaimed(sessionId: string, toolCallId: string): boolean {
    return this.claimed.get(sessionId)?.has(toolCallId) === true;
  }

  /** Calls `listener` after every noted update, until the returned function is called. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  lookup(sessionId: string, toolCallId: string): ToolCallUpdate | undefined {
    return this.sessions.get(sessionId)?.get(toolCallId);
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.claimed.delete(sessionId);
  }
}

export class PermissionDesk {
  private readonly pending = new Set<(response: RequestPermissionResponse) => void>();
  private cancelled = false;

  constructor(private readonly options: PermissionOptions) {}

  async handle(params: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const call = params.toolCall;
    const question: PermissionQuestion = {
      sessionId: params.sessionId,
      title: call.title || call.name || "tool call",
      toolName: call.name ?? null,
      toolCallId: call.toolCallId,
      rawInput: call.rawInput,
      isDoTool: this.isOurDo(params),
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

  isOurDo(params: RequestPermissionRequest): boolean {
    try {
      return this.options.isOurDoTool(params);
    } catch {
      return false; // a malformed request is not ours
    }
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
