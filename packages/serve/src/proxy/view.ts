/**
 * What the editor sees while a program runs: its output as `agent_message_chunk`s, each
 * think as a `tool_call` of kind `think` whose content is the inner agent's streamed answer,
 * each `do` call and each shell command as a `tool_call` of its own, the inner agent's
 * thoughts as `agent_thought_chunk`s, its own tool calls (it reads a file, runs a command)
 * as `tool_call`s nested under the think's, and the thinks' usage summed.
 */
import type {
  RequestPermissionRequest,
  SessionUpdate,
  ToolCall,
  ToolCallContent,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from "@agentclientprotocol/sdk/unstable";
import type { ShellResult } from "@patchwork/interpreter";
import { addUsage, emptyUsage, type RunEvent, type UsageFigures } from "@patchwork/agent";

/** Text for a tool call's content, clipped (a tool call is a summary; the output streams as messages). */
const MAX_CONTENT = 16_000;

export class ProgramView {
  private readonly thinks = new Map<number, { toolCallId: string; text: string; sent: number }>();
  private readonly dos: { toolCallId: string; thinkId: number; index: number; output: string[] }[] = [];
  private doCount = 0;
  readonly usage: UsageFigures = emptyUsage();
  /** The largest context window size the thinks' agent reported (0: none did). */
  contextSize = 0;
  /** Inner sessions of this program's thinks (to route their permission and client requests), to their think. */
  private readonly innerSessions = new Map<string, number>();
  /** The inner agent's tool calls, by think and its id: their id in the editor session, and whether still open. */
  private readonly nested = new Map<string, { toolCallId: string; thinkId: number; open: boolean }>();
  private timer: NodeJS.Timeout | null = null;

  /** `tag` makes this program's tool call ids unique in the editor session. */
  constructor(
    private readonly tag: string,
    private readonly send: (update: SessionUpdate) => void,
  ) {}

  output(text: string): void {
    for (const open of this.dos) open.output.push(text);
    this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  event(event: RunEvent): void {
    switch (event.type) {
      case "think-start": {
        const toolCallId = `${this.tag}-think-${event.id}`;
        this.thinks.set(event.id, { toolCallId, text: "", sent: 0 });
        const title = event.prompt.split("\n").map((line) => line.trim()).find((line) => line !== "") ?? event.kind;
        this.send({
          sessionUpdate: "tool_call",
          toolCallId,
          title: clip(title, 120),
          kind: "think",
          status: "in_progress",
          rawInput: { kind: event.kind, prompt: event.prompt, at: `${event.fileName}:${event.span.start.line}:${event.span.start.column}` },
        });
        return;
      }
      case "agent-text": {
        const think = this.thinks.get(event.thinkId);
        if (!think) return;
        think.text += event.text;
        this.scheduleFlush();
        return;
      }
      case "agent-thought":
        this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } });
        return;
      case "think-end": {
        const think = this.thinks.get(event.id);
        if (!think) return;
        this.flush();
        this.closeNested(event.id, event.ok ? "completed" : "failed");
        this.thinks.delete(event.id);
        // The value with its structure (JSON: an array is not its elements joined), beside the answer's text.
        const value = event.ok && event.value !== undefined ? { rawOutput: { value: event.value } } : {};
        this.send({ sessionUpdate: "tool_call_update", toolCallId: think.toolCallId, status: event.ok ? "completed" : "failed", ...value });
        return;
      }
      case "do-start": {
        const toolCallId = `${this.tag}-do-${++this.doCount}`;
        this.dos.push({ toolCallId, thinkId: event.thinkId, index: event.index, output: [] });
        const think = this.thinks.get(event.thinkId)?.toolCallId ?? null;
        this.flush();
        this.send({
          sessionUpdate: "tool_call",
          toolCallId,
          title: `do block ${event.index}`,
          kind: "execute",
          status: "in_progress",
          rawInput: { block: event.index, think },
          ...(think ? { _meta: { patchwork: { parentToolCallId: think } } } : {}),
        });
        return;
      }
      case "do-end": {
        const at = this.dos.findLastIndex((d) => d.thinkId === event.thinkId && d.index === event.index);
        if (at < 0) return;
        const [done] = this.dos.splice(at, 1);
        const output = done!.output.join("");
        this.send({
          sessionUpdate: "tool_call_update",
          toolCallId: done!.toolCallId,
          status: event.ok ? "completed" : "failed",
          ...(output ? { content: textContent(output) } : {}),
        });
        return;
      }
      case "session":
        this.innerSessions.set(event.sessionId, event.thinkId);
        return;
      case "tool-call":
        // A call of our `do` tool is already shown by `do-start`/`do-end`.
        if (event.ours) return;
        this.nestedCall(event.thinkId, {
          toolCallId: event.toolCallId,
          title: event.title,
          status: event.status as ToolCallStatus,
          ...(event.kind ? { kind: event.kind as ToolKind } : {}),
          ...(event.content ? { content: event.content } : {}),
          ...(event.locations ? { locations: event.locations } : {}),
          ...(event.rawInput !== undefined ? { rawInput: event.rawInput } : {}),
          ...(event.rawOutput !== undefined ? { rawOutput: event.rawOutput } : {}),
        });
        return;
      case "usage":
        addUsage(this.usage, event.usage);
        if (event.contextSize) this.contextSize = Math.max(this.contextSize, event.contextSize);
        return;
      default:
        return;
    }
  }

  /** Whether `sessionId` is the inner session of one of this program's thinks. */
  hasSession(sessionId: string): boolean {
    return this.innerSessions.has(sessionId);
  }

  /**
   * A permission request of a think's inner session, for the editor: its tool call named by
   * its id in the editor session, and announced first if its `tool_call` has not reached the
   * editor yet (the request may overtake the notification).
   */
  permission(params: RequestPermissionRequest, editorSession: string): RequestPermissionRequest {
    const thinkId = this.innerSessions.get(params.sessionId);
    const { toolCall } = params;
    const known = thinkId === undefined ? undefined : this.nested.get(nestedKey(thinkId, toolCall.toolCallId));
    const id =
      known?.toolCallId ??
      (thinkId === undefined
        ? undefined
        : this.nestedCall(thinkId, { ...toolCall, title: toolCall.title ?? "", status: toolCall.status ?? "pending" }));
    return { ...params, sessionId: editorSession, toolCall: { ...toolCall, ...(id ? { toolCallId: id } : {}) } };
  }

  /**
   * The inner agent's tool call (or an update of it) as a tool call of the editor session,
   * nested under its think's (`_meta.patchwork.parentToolCallId`); returns its id there.
   */
  private nestedCall(thinkId: number, update: ToolCallUpdate & { title: string; status: ToolCallStatus }): string | undefined {
    const think = this.thinks.get(thinkId);
    if (!think) return undefined;
    // The think's answer so far first: the editor shows both in the order they happened.
    this.flush();
    const key = nestedKey(thinkId, update.toolCallId);
    let call = this.nested.get(key);
    // What the agent gave (ACP allows null for "unchanged" in updates).
    const fields = Object.fromEntries(
      Object.entries(update).filter(([key, value]) => key !== "toolCallId" && value !== null && value !== undefined),
    ) as Omit<ToolCall, "toolCallId">;
    if (!call) {
      call = { toolCallId: `${think.toolCallId}/${update.toolCallId}`, thinkId, open: true };
      this.nested.set(key, call);
      this.send({
        ...fields,
        sessionUpdate: "tool_call",
        toolCallId: call.toolCallId,
        _meta: { ...fields._meta, patchwork: { parentToolCallId: think.toolCallId } },
      });
    } else {
      this.send({ ...fields, sessionUpdate: "tool_call_update", toolCallId: call.toolCallId });
    }
    call.open = update.status !== "completed" && update.status !== "failed";
    return call.toolCallId;
  }

  /** The inner tool calls of a think that ended and never said they had: they end with it. */
  private closeNested(thinkId: number, status: ToolCallStatus): void {
    for (const [key, call] of this.nested) {
      if (call.thinkId !== thinkId) continue;
      if (call.open) this.status(call.toolCallId, status);
      this.nested.delete(key);
    }
  }

  shellStart(id: number, command: string): void {
    this.send({
      sessionUpdate: "tool_call",
      toolCallId: `${this.tag}-sh-${id}`,
      title: clip(command, 120),
      kind: "execute",
      status: "in_progress",
      rawInput: { command },
    });
  }

  shellEnd(id: number, result: ShellResult | null): void {
    const text = result ? `${result.stdout}${result.stderr}${result.status !== 0 ? `\n(exit status ${result.status})` : ""}` : "";
    this.send({
      sessionUpdate: "tool_call_update",
      toolCallId: `${this.tag}-sh-${id}`,
      status: result && result.status === 0 ? "completed" : "failed",
      ...(text.trim() ? { content: textContent(text) } : {}),
    });
  }

  /** Closes what is still open (a cancelled or failed program). */
  finish(ok: boolean): void {
    this.flush();
    for (const [id, think] of this.thinks) {
      this.closeNested(id, ok ? "completed" : "failed");
      this.status(think.toolCallId, ok ? "completed" : "failed");
    }
    this.thinks.clear();
    for (const open of this.dos.splice(0)) this.status(open.toolCallId, "failed");
  }

  /** A think's answer goes out at most every 50 ms (each update carries the whole text so far). */
  private scheduleFlush(): void {
    this.timer ??= setTimeout(() => this.flush(), 50);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const think of this.thinks.values()) {
      if (think.sent === think.text.length) continue;
      think.sent = think.text.length;
      this.send({ sessionUpdate: "tool_call_update", toolCallId: think.toolCallId, content: textContent(think.text) });
    }
  }

  private status(toolCallId: string, status: ToolCallStatus): void {
    this.send({ sessionUpdate: "tool_call_update", toolCallId, status });
  }
}

function textContent(text: string): ToolCallContent[] {
  const shown = text.length > MAX_CONTENT ? `…${text.slice(text.length - MAX_CONTENT)}` : text;
  return [{ type: "content", content: { type: "text", text: shown } }];
}

function nestedKey(thinkId: number, toolCallId: string): string {
  return `${thinkId}/${toolCallId}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
