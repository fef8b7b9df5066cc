/**
 * Thinks in the resumable form (decision 0016, "Thinks"): an untyped statement-level think with
 * no `do` block suspends its task while the agent answers, when the agent can `defer` it (a task
 * thread's agent); every other think blocks as before.
 */
import type { Expr, Stmt, ThinkExpr } from "@patchwork/parser";
import { AgentError, type ThinkAnswer } from "../ports.js";
import type { Value } from "../values.js";
import type { GenExpr } from "./resumable-types.js";
import type { Cx } from "./scope.js";
import { compileThinkSteps, showAnswer } from "./think.js";

/**
 * A think that may suspend its task: `think`, not `ask` (a terminal read), with no `do` block (a
 * `do` runs on the task's thread, which other tasks share meanwhile), not Threadbare's. Whether
 * it is untyped depends on where it stands (`typedThink`): a typed one blocks as before.
 */
export function suspendableThink(e: Expr): e is ThinkExpr {
  return e.kind === "Think" && e.mode === "think" && e.children.length === 0 && !e.verbatim;
}

/** A think that its statement types (`var x: T =`, `x =` for an annotated `x`, `return` in a typed function): it may need repair turns, so it blocks. */
export function typedThink(s: Stmt, cx: Cx): boolean {
  switch (s.kind) {
    case "VarDecl":
      return s.init?.kind === "Think" && s.type !== null && s.type !== undefined;
    case "Return":
      return s.value?.kind === "Think" && Boolean(cx.scope.fn.returnType);
    case "ExprStmt": {
      const e = s.expr;
      return e.kind === "Assign" && e.value.kind === "Think" && e.target.kind === "Ident" && Boolean(cx.scope.lookup(e.target.name)?.type);
    }
    default:
      return false;
  }
}

/**
 * An untyped think with no `do` block (`suspendableThink`): the same steps as the blocking think
 * (think.ts), but when the agent can `defer` it the task suspends while the agent answers. The
 * answer, or the agent's failure, goes through the same conversion and errors as a blocking
 * think's. `shown`: a think as a statement shows its answer.
 */
export function thinkGen(e: ThinkExpr, cx: Cx, shown: boolean): GenExpr {
  const steps = compileThinkSteps(e, cx, null);
  const rt = cx.m.rt;
  return function* (f) {
    const turn = steps.begin(f);
    const request = rt.agent.defer?.(turn.request) ?? null;
    let v: Value;
    if (!request) v = steps.end(turn);
    else {
      const a = (yield { kind: "think", request }) as ThinkAnswer;
      v = steps.end(turn, () => {
        if (!a.ok) throw new AgentError(a.code, a.message);
        return { kind: "text", text: a.text };
      });
    }
    return shown ? showAnswer(rt, v) : v;
  };
}

