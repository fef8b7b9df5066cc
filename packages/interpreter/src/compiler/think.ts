/**
 * think / ask: render the prompt, offer the `do` children through `runChild`, ask the
 * agent, and convert its reply by the declared type (language.md §5).
 */
import type { Expr, Stmt, ThinkExpr, TypeExpr } from "@patchwork/parser";
import { raise, RuntimeError } from "../errors.js";
import { parseJson } from "../json.js";
import { AgentError, type ChildResult, type PwEvent, type RunChild, type ThinkReply, type ThinkRequest } from "../ports.js";
import { isStackOverflow, RETURN, type Runtime } from "../runtime.js";
import { isStringType, typeToText } from "../types/check.js";
import { jsonSchemaOf, toZod, validate } from "../types/schema.js";
import type { JsonValue } from "../ports.js";
import { fromJson, toJson, toText, type Value } from "../values.js";
import { countThinks } from "../think-sites.js";
import { compileExpr } from "./expr.js";
import { compilePromptText, DO_NOTE } from "./prompt.js";
import { childCx, type Cx, type Scope } from "./scope.js";
import { compileStatements } from "./stmt.js";

export interface ThinkType {
  type: TypeExpr;
  scope: Scope;
}

type Child = (f: Value[]) => Value;

/** A child's value: its expression, or the last expression statement of its block. */
function compileChild(s: Stmt, cx: Cx): Child {
  const ccx: Cx = { ...childCx(cx), loops: 0 };
  const rt = cx.m.rt;
  const stmts = s.kind === "Block" ? s.statements : [s];
  const last = stmts[stmts.length - 1];
  const tail = last && last.kind === "ExprStmt" ? last : null;
  const head = compileStatements(tail ? stmts.slice(0, -1) : stmts, ccx);
  // A think as the last statement is still a statement: its answer is shown (and is the value).
  const value = tail ? (isShownThink(tail.expr) ? compileShownThink(tail.expr, ccx) : compileExpr(tail.expr, ccx)) : () => null;
  return (f) => {
    const sig = head(f);
    if (sig === RETURN) {
      const v = rt.ret;
      rt.ret = null;
      return v;
    }
    return sig === 0 ? value(f) : null;
  };
}

function validNumbers(n: number): string {
  if (n === 0) return "this think has no do blocks";
  return n === 1 ? "the only valid number is 0" : `valid numbers are 0 to ${n - 1}`;
}

function makeRunChild(rt: Runtime, children: Child[], f: Value[], thinkId: number, e: ThinkExpr, file: string): RunChild {
  return (index: number): ChildResult => {
    if (!Number.isInteger(index) || index < 0 || index >= children.length)
      return { ok: false, error: `there is no do block ${index}: ${validNumbers(children.length)}` };
    rt.emit({ type: "do-start", thinkId, index });
    const cap: string[] = [];
    rt.captures.push(cap);
    const depth = rt.depth;
    try {
      if (++rt.depth > rt.maxDepth) rt.tooDeep(e, file);
      const v = children[index]!(f);
      rt.depth = depth;
      const printed = cap.join("");
      const text = printed.length > 0 ? printed : toText(v);
      rt.emit({ type: "do-end", thinkId, index, ok: true, text });
      return { ok: true, text };
    } catch (err) {
      rt.depth = depth;
      if (err instanceof RangeError) throw rt.fromRangeError(err, e.span, file);
      if (!(err instanceof RuntimeError) || err.fatal) throw err;
      const { line, column } = err.span.start;
      const error = `do block ${index} failed: ${err.fileName}:${line}:${column}: error[${err.code}]: ${err.message}`;
      rt.emit({ type: "do-end", thinkId, index, ok: false, error });
      return { ok: false, error };
    } finally {
      const i = rt.captures.lastIndexOf(cap);
      if (i >= 0) rt.captures.splice(i, 1);
    }
  };
}

interface TypeInfo {
  text: string;
  schema: ReturnType<typeof toZod>;
  json: JsonValue;
}

function typeInfoOf(typed: ThinkType | null): TypeInfo | null {
  if (!typed || isStringType(typed.type, typed.scope)) return null;
  const schema = toZod(typed.type, typed.scope);
  return { text: typeToText(typed.type), schema, json: jsonSchemaOf(schema) };
}

export function formatInstruction(t: TypeInfo): string {
  return (
    `Answer with JSON of type \`${t.text}\` in a \`\`\`json fence, matching this JSON schema:\n` +
    "```json\n" +
    JSON.stringify(t.json, null, 2) +
    "\n```"
  );
}

/**
 * A think or ask used as a statement (its value not used): its answer is shown, written to the
 * program's output like a print (language.md §5: an answer nobody sees is lost work), so that it
 * reaches the terminal, the panel, a `do` block's result and a skill's tool result alike.
 * Threadbare programs keep the seeds' semantics (only `Print` nodes write; a Think gives its reply
 * as a value), hence only source thinks (`verbatim` false).
 */
export function isShownThink(e: Expr): e is ThinkExpr {
  return e.kind === "Think" && !e.verbatim;
}

/** `think {…}` as a statement: its value, after its answer was shown (`isShownThink`). */
export function compileShownThink(e: ThinkExpr, cx: Cx): (f: Value[]) => Value {
  const rt = cx.m.rt;
  const think = compileThink(e, cx, null);
  return (f) => showAnswer(rt, think(f));
}

/** Writes a shown think's answer (`isShownThink`) to the program's output; gives it back. */
export function showAnswer(rt: Runtime, v: Value): Value {
  const text = toText(v);
  rt.write(text.endsWith("\n") || text === "" ? text : text + "\n");
  return v;
}

export function compileThink(e: ThinkExpr, cx: Cx, typed: ThinkType | null): (f: Value[]) => Value {
  const steps = compileThinkSteps(e, cx, typed);
  return (f) => steps.end(steps.begin(f));
}

/** One think under way: its request, its `do` children, what its events have seen. */
export interface ThinkTurn {
  request: ThinkRequest;
  runChild: RunChild;
  seen: Seen | null;
}

/**
 * A think in two steps, so that a task run resumably (resumable.ts) can suspend between them
 * while the agent answers: `begin` checks the time, renders the prompt, numbers the think and
 * emits `think-start`; `end` asks the agent (or takes `first`, the reply the task's driver got
 * for it: a failure thrown there is positioned at the think as the agent's own), converts the
 * reply by the declared type (repair turns included) and emits `think-end`.
 */
export function compileThinkSteps(
  e: ThinkExpr,
  cx: Cx,
  typed: ThinkType | null,
): { begin(f: Value[]): ThinkTurn; end(turn: ThinkTurn, first?: () => ThinkReply): Value } {
  const rt = cx.m.rt;
  const file = cx.m.fileName;
  const body = compilePromptText(e, cx);
  const children = e.children.map((c) => compileChild(c, cx));
  const nested = countThinks(e.children, { asks: !rt.askUser });
  const ahead = nested > 0 || cx.loops > 0 ? { nested, loop: cx.loops > 0 } : undefined;
  let info: TypeInfo | null | undefined;
  const suffix = () => {
    info ??= typeInfoOf(typed);
    let s = e.verbatim || children.length === 0 ? "" : "\n\n" + DO_NOTE;
    if (info) s += "\n\n" + formatInstruction(info);
    return s;
  };
  const begin = (f: Value[]): ThinkTurn => {
    rt.checkTime(e, file);
    const prompt = body(f) + suffix();
    const id = ++rt.thinkCounter;
    const request: ThinkRequest = {
      id,
      kind: e.mode,
      prompt,
      typeText: typed ? typeToText(typed.type) : null,
      schema: info ? info.json : null,
      childCount: children.length,
      fileName: file,
      span: e.span,
      ...(ahead ? { ahead } : {}),
    };
    const runChild = makeRunChild(rt, children, f, id, e, file);
    if (!rt.events) return { request, runChild, seen: null };
    rt.emit({ type: "think-start", id, kind: e.mode, prompt, fileName: file, span: e.span, typeText: request.typeText });
    return { request, runChild, seen: { reply: undefined } };
  };
  const end = (turn: ThinkTurn, first?: () => ThinkReply): Value => {
    const { request, runChild, seen } = turn;
    if (!seen) return answer(rt, request, runChild, info ?? null, e, file, null, first);
    try {
      const v = answer(rt, request, runChild, info ?? null, e, file, seen, first);
      rt.emit(thinkEnd(request.id, seen, v));
      return v;
    } catch (err) {
      rt.emit({ type: "think-end", id: request.id, ok: false, error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  };
  return { begin, end };
}

/** What the events of a think need to know of its answer: the latest reply text. */
export interface Seen {
  reply: string | undefined;
}

function thinkEnd(id: number, seen: Seen, v: Value): PwEvent {
  let value: JsonValue;
  try {
    value = toJson(v);
  } catch {
    value = null; // nested too deeply for JSON: the value itself is fine, only the event lacks it
  }
  return seen.reply === undefined ? { type: "think-end", id, ok: true, value } : { type: "think-end", id, ok: true, reply: seen.reply, value };
}

function askAgent(rt: Runtime, request: ThinkRequest, runChild: RunChild, e: ThinkExpr, file: string, follow?: () => ThinkReply): ThinkReply {
  try {
    if (follow) return follow();
    if (request.kind === "ask" && rt.askUser && rt.host.readLine) {
      const line = rt.host.readLine(request.prompt);
      return line === null ? { kind: "value", value: null } : { kind: "text", text: line };
    }
    return rt.agent.think(request, runChild);
  } catch (err) {
    if (err instanceof AgentError) throw new RuntimeError(err.code, err.message, e.span, file);
    if (err instanceof RuntimeError || isStackOverflow(err)) throw err;
    if (err instanceof RangeError) throw rt.fromRangeError(err, e.span, file);
    return raise("PW3031", e.span, file, { detail: err instanceof Error ? err.message : String(err) });
  }
}

function answer(
  rt: Runtime,
  request: ThinkRequest,
  runChild: RunChild,
  info: TypeInfo | null,
  e: ThinkExpr,
  file: string,
  seen: Seen | null,
  given?: () => ThinkReply,
): Value {
  const reply = askAgent(rt, request, runChild, e, file, given);
  if (reply.kind === "value") return fromJson(reply.value);
  if (seen) seen.reply = reply.text;
  if (!info) return extractText(reply.text);
  const first = convertJson(reply.text, info);
  if (first.ok) return first.value;
  if (reply.followUp) {
    const message =
      `Your answer could not be used: ${first.error}. ` +
      `Answer again with JSON of type \`${info.text}\` in a \`\`\`json fence.`;
    if (seen) rt.emit({ type: "think-repair", id: request.id, reply: reply.text, error: first.error, message });
    const again = askAgent(rt, request, runChild, e, file, () => reply.followUp!(message, runChild));
    if (again.kind === "value") return fromJson(again.value);
    if (seen) seen.reply = again.text;
    const second = convertJson(again.text, info);
    if (second.ok) return second.value;
    return raise("PW3030", e.span, file, { type: info.text, detail: second.error, reply: again.text });
  }
  return raise("PW3030", e.span, file, { type: info.text, detail: first.error, reply: reply.text });
}

/** The content of a ```text fence if the reply has one, else the whole reply trimmed. */
export function extractText(reply: string): string {
  const m = /```text[^\n]*\n([\s\S]*?)\n?```/.exec(reply);
  return m ? m[1]! : reply.trim();
}

function extractJsonText(reply: string): string {
  const m = /```json[^\n]*\n([\s\S]*?)```/.exec(reply) ?? /```[a-z]*\n([\s\S]*?)```/.exec(reply);
  return (m ? m[1]! : reply).trim();
}

function convertJson(reply: string, info: TypeInfo): { ok: true; value: Value } | { ok: false; error: string } {
  let value: Value;
  try {
    value = parseJson(extractJsonText(reply));
  } catch (err) {
    return { ok: false, error: `the reply is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  const problem = validate(info.schema, toJson(value));
  return problem ? { ok: false, error: problem } : { ok: true, value };
}
