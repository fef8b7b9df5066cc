/** Shared shapes of compiled code. */
import type { Value } from "../values.js";

/** A compiled expression: evaluates against the current frame. */
export type ExprFn = (f: Value[]) => Value;
/** A compiled condition: an expression evaluated for its truth. */
export type CondFn = (f: Value[]) => boolean;
/** A compiled statement: returns a completion signal (NORMAL, BREAK, CONTINUE, RETURN). */
export type StmtFn = (f: Value[]) => number;
