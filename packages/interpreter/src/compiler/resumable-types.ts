/** The shapes of the resumable form (resumable.ts, resumable-think.ts). */
import type { JoinResult, ReceiveResult, ThinkAnswer, ThinkRequest } from "../ports.js";
import type { Value } from "../values.js";

/** What a resumable task waits for; its driver answers with the Workers' result. */
export type Wait =
  | { kind: "receive"; mailbox: string; timeoutMs: number }
  | { kind: "join"; group: number }
  | { kind: "think"; request: ThinkRequest };
export type WaitAnswer = ReceiveResult | JoinResult | ThinkAnswer;
export type Resumable<T> = Generator<Wait, T, WaitAnswer>;
export type GenExpr = (f: Value[]) => Resumable<Value>;
