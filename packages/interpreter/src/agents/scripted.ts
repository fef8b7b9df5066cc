/**
 * A scripted in-thread agent for tests and examples. Each think (in the order thinks are
 * started, nested ones included) consumes one script: a list of steps.
 * - `{ do: n }` calls `runChild(n)` re-entrantly (the child may start further thinks);
 * - `{ reply: text }` ends the turn with that reply (text may be computed from the record);
 * - `{ fail: message, code? }` throws an AgentError (default code PW4001).
 * A follow-up (the repair turn of a typed think) continues with the steps after the reply.
 * Running out of steps replies with the empty string. Everything is recorded.
 */
import { AgentError, type Agent, type ChildResult, type RunChild, type ThinkReply, type ThinkRequest } from "../ports.js";

export type ScriptStep =
  | { do: number }
  /** The reply text, or a function of what happened so far in this think (e.g. its do results). */
  | { reply: string | ((record: ScriptedThinkRecord) => string) }
  | { fail: string; code?: string };

export type Script = ScriptStep[] | ((request: ThinkRequest, index: number) => ScriptStep[]);

export interface ScriptedThinkRecord {
  request: ThinkRequest;
  /** Results of the `do` calls made for this think, in order. */
  doResults: ChildResult[];
  /** Follow-up messages received (repair turns). */
  followUps: string[];
}

export class ScriptedAgent implements Agent {
  /** One record per think, in start order. */
  readonly thinks: ScriptedThinkRecord[] = [];
  private next = 0;

  /** `scripts[i]` drives the i-th think; or one function giving the steps of every think. */
  constructor(private readonly scripts: Script[] | ((request: ThinkRequest, index: number) => ScriptStep[])) {}

  /** The prompts received, in order. */
  get prompts(): string[] {
    return this.thinks.map((t) => t.request.prompt);
  }

  think(request: ThinkRequest, runChild: RunChild): ThinkReply {
    const index = this.next++;
    const record: ScriptedThinkRecord = { request, doResults: [], followUps: [] };
    this.thinks.push(record);
    const steps = this.stepsFor(request, index);
    return this.play(steps, 0, record, runChild);
  }

  private stepsFor(request: ThinkRequest, index: number): ScriptStep[] {
    if (typeof this.scripts === "function") return this.scripts(request, index);
    const s = this.scripts[index];
    if (s === undefined) return [];
    return typeof s === "function" ? s(request, index) : s;
  }

  private play(steps: ScriptStep[], from: number, record: ScriptedThinkRecord, runChild: RunChild): ThinkReply {
    for (let i = from; i < steps.length; i++) {
      const step = steps[i]!;
      if ("do" in step) record.doResults.push(runChild(step.do));
      else if ("fail" in step) throw new AgentError(step.code ?? "PW4001", step.fail);
      else {
        const rest = i + 1;
        return {
          kind: "text",
          text: typeof step.reply === "function" ? step.reply(record) : step.reply,
          followUp: (message, rc) => {
            record.followUps.push(message);
            return this.play(steps, rest, record, rc);
          },
        };
      }
    }
    return { kind: "text", text: "" };
  }
}
