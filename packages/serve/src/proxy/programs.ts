/**
 * The panel's Patchwork programs: a prompt that is a program, `/run file [words…]`, a file's
 * `/command`, `/check file`. Each runs on the editor session's evaluator (state kept across
 * prompts) and answers the turn: the program's output, its entry's value or a bare
 * expression's echo, its diagnostics, and the session's summed `usage_update`.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { SourceFile, type Diagnostic, type Program } from "@patchwork/parser";
import { countThinks, entryResultText, type JsonValue } from "@patchwork/interpreter";
import { ShellRunner, type EvaluatorSession, type ProgramResult, type SessionEntry, type UsageFigures } from "@patchwork/agent";
import { diagnosticsText } from "../diagnostics.js";
import { parsePanelProgram, splitNamedArgs } from "./prompts.js";
import { PlanView, type PlanOptions } from "./plan.js";
import { ProgramView } from "./view.js";

/** What a program run needs of an editor session. */
export interface PanelSession {
  id: string;
  cwd: string;
  evaluator: EvaluatorSession;
  /** Programs run so far (names the typed ones `<prompt N>`). */
  programs: number;
  /** The running program's view (its thinks' permission and client requests go to this editor session). */
  view: ProgramView | null;
}

export class PanelPrograms {
  private readonly usageTotals = new Map<string, { used: number; size: number; cost: Record<string, number> }>();

  /**
   * `update`: sends a `session/update` of the editor session. `planOptions`: the plan's
   * (`{enabled: false}`: none, for benchmarks); `onPlan`: told each program's plan traffic.
   */
  constructor(
    private readonly update: (sessionId: string, update: acp.SessionUpdate) => void,
    private readonly planOptions: PlanOptions = {},
    private readonly onPlan?: (sent: { plans: number; bytes: number }) => void,
  ) {}

  /** The session's usage totals are dropped when it closes. */
  forget(sessionId: string): void {
    this.usageTotals.delete(sessionId);
  }

  /** A file named in a slash command, relative to the session's folder; or the reply saying it cannot be read. */
  private readPanelFile(session: PanelSession, file: string): { path: string; text: string } | acp.PromptResponse {
    const path = isAbsolute(file) ? file : resolve(session.cwd, file);
    try {
      return { path, text: readFileSync(path, "utf8") };
    } catch (error) {
      return this.reply(session, `Cannot read ${file}: ${(error as Error).message}`);
    }
  }

  check(session: PanelSession, file: string): acp.PromptResponse {
    const read = this.readPanelFile(session, file);
    if (!("text" in read)) return read;
    const { text } = read;
    const parsed = parsePanelProgram(text, file);
    const errors = parsed.diagnostics.filter((d) => d.severity === "error" || d.severity === "warning");
    if (errors.length === 0) return this.reply(session, `${file}: no syntax errors.`);
    return this.reply(session, renderDiagnostics(errors, new SourceFile(parsed.source, file)));
  }

  async runPanelProgram(session: PanelSession, text: string, signal: AbortSignal): Promise<acp.PromptResponse> {
    const fileName = `<prompt ${++session.programs}>`;
    const parsed = parsePanelProgram(text, fileName);
    // Excerpts show the prompt as typed (its outer braces blanked for running keep every position).
    const typed = new SourceFile(text, fileName);
    if (parsed.diagnostics.some((d) => d.severity === "error")) return this.reply(session, renderDiagnostics(parsed.diagnostics, typed));
    return this.runProgram(session, { source: parsed.source, fileName, echo: echoesValue(parsed.program), thinks: countThinks(parsed.program, { asks: true }) }, signal, typed);
  }

  /**
   * `/run file [words…]` and a file's `/command [args…]` (`entry`). The words mean what they mean
   * after the file on `patchwork run`'s command line, decided by the interpreter (planMain;
   * docs/cli.md, "What a run gives back"): they are the program's `args`; when the first names an
   * entry, it runs after the statements with the rest, converted to its parameter types (`--arg
   * name=value` names one); otherwise a file with statements just runs them, else its default
   * entry runs (with the words as its arguments when it takes any).
   */
  async runFile(session: PanelSession, file: string, words: string[], signal: AbortSignal, entry?: string): Promise<acp.PromptResponse> {
    const read = this.readPanelFile(session, file);
    if (!("text" in read)) return read;
    const { path, text } = read;
    const parsed = parsePanelProgram(text, path);
    const main = new SourceFile(text, path);
    if (!parsed.program || parsed.diagnostics.some((d) => d.severity === "error"))
      return this.reply(session, renderDiagnostics(parsed.diagnostics, main));
    ++session.programs;
    const { positional, named } = splitNamedArgs(words);
    const run: SessionEntry =
      entry !== undefined
        ? { entry, argStrings: { positional, named } }
        : { ...(positional.length > 0 ? { entry: positional[0] } : {}), argStrings: { positional: positional.slice(1), named }, entryMayBeArgument: true };
    return this.runProgram(session, { source: text, fileName: path, main: run, thinks: countThinks(parsed.program, { asks: true }) }, signal, main);
  }

  /**
   * A prompt `$ command`: runs it with `/bin/sh` in the session's folder (its own process group,
   * killed on cancel) and shows it as a tool call, then its output and exit status as the reply.
   */
  async runShell(session: PanelSession, command: string, signal: AbortSignal): Promise<acp.PromptResponse> {
    const toolCallId = `sh-prompt-${++session.programs}`;
    this.update(session.id, { sessionUpdate: "tool_call", toolCallId, title: `$ ${command}`.slice(0, 120), kind: "execute", status: "in_progress", rawInput: { command } });
    const runner = new ShellRunner({ env: process.env, stdin: "ignore" });
    const kill = () => runner.killAll();
    signal.addEventListener("abort", kill, { once: true });
    const result = await runner.run(command, session.cwd, undefined).finally(() => signal.removeEventListener("abort", kill));
    const ok = result.status === 0;
    this.update(session.id, { sessionUpdate: "tool_call_update", toolCallId, status: ok ? "completed" : "failed" });
    if (signal.aborted) return { stopReason: "cancelled" };
    const output = `${result.stdout}${result.stderr}`;
    const status = ok ? "exit status 0" : `exit status ${result.status}: the command failed`;
    return this.reply(session, `${output}${output === "" || output.endsWith("\n") ? "" : "\n"}(${status})\n`);
  }

  /**
   * Runs a program on the session's evaluator and answers the turn. `echo`: a prompt that ends
   * with a bare expression shows its value as a REPL does, in a form that tells an array from a
   * string (`→ ["a","b"] (array)`).
   */
  private async runProgram(
    session: PanelSession,
    program: { source: string; fileName: string; main?: SessionEntry; echo?: boolean; thinks: number },
    signal: AbortSignal,
    main: SourceFile,
  ): Promise<acp.PromptResponse> {
    const view = new ProgramView(`pw${session.programs}`, (update) => this.update(session.id, update));
    const plan = new PlanView((update) => this.update(session.id, update), this.planOptions);
    session.view = view;
    let result: ProgramResult | null = null;
    // A cancelled program's plan stops at once (its events may still come while it unwinds).
    const stopPlan = () => plan.stop();
    signal.addEventListener("abort", stopPlan, { once: true });
    try {
      result = await session.evaluator.run(program.source, program.fileName, {
        signal,
        main: program.main,
        // Its think blocks' sessions are made ahead (the panel's asks are answered by the agent too).
        thinks: program.thinks,
        onOutput: (text) => view.output(text),
        onEvent: (event) => {
          view.event(event);
          plan.event(event);
        },
        onShellStart: (id, command) => view.shellStart(id, command),
        onShellEnd: (id, r) => view.shellEnd(id, r),
      });
    } finally {
      session.view = null;
      signal.removeEventListener("abort", stopPlan);
      plan.finish(signal.aborted);
      this.onPlan?.(plan.sent);
    }
    // An entry's return value follows its output, as on every host (entryResultText).
    if (result.ok && result.entry !== undefined) {
      const shown = entryResultText(result).slice(result.output.length);
      if (shown !== "") view.output(shown);
    } else if (result.ok && program.echo && result.value !== null) {
      view.output(`${result.output === "" || result.output.endsWith("\n") ? "" : "\n"}→ ${JSON.stringify(result.value)} (${valueKind(result.value)})\n`);
    }
    view.finish(result.ok);
    const usage = view.usage;
    if (usage.totalTokens > 0 || usage.contextTokens !== 0 || Object.keys(usage.cost).length > 0) this.sendUsage(session, usage, view.contextSize);
    const response = (stopReason: acp.StopReason): acp.PromptResponse => ({
      stopReason,
      ...(usage.totalTokens > 0
        ? { usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens } }
        : {}),
    });
    const lostState = result.reset ? "\n\nThe program did not stop in time, so its evaluator was restarted: this session's Patchwork variables and functions are gone." : "";
    if (result.cancelled) {
      if (lostState) this.message(session, lostState.trimStart());
      return response("cancelled");
    }
    const errors = result.diagnostics.filter((d) => d.severity === "error" || d.severity === "warning");
    if (errors.length > 0) this.message(session, `${result.output && !result.output.endsWith("\n") ? "\n" : ""}${renderDiagnostics(errors, main)}${lostState}`);
    return response("end_turn");
  }

  /**
   * `usage_update`: the context tokens and cost of this session's thinks, summed; `size` the
   * largest context window their agent reported (0 when it never said).
   */
  private sendUsage(session: PanelSession, usage: UsageFigures, contextSize: number): void {
    const total = this.usageTotals.get(session.id) ?? { used: 0, size: 0, cost: {} };
    total.used += usage.contextTokens;
    total.size = Math.max(total.size, contextSize);
    for (const [currency, amount] of Object.entries(usage.cost)) total.cost[currency] = (total.cost[currency] ?? 0) + amount;
    this.usageTotals.set(session.id, total);
    const [currency, amount] = Object.entries(total.cost)[0] ?? [];
    this.update(session.id, {
      sessionUpdate: "usage_update",
      used: total.used,
      size: total.size,
      ...(currency ? { cost: { amount: amount!, currency } } : {}),
    });
  }

  private reply(session: PanelSession, text: string): acp.PromptResponse {
    this.message(session, text);
    return { stopReason: "end_turn" };
  }

  private message(session: PanelSession, text: string): void {
    this.update(session.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }
}

function renderDiagnostics(diagnostics: readonly Diagnostic[], main: SourceFile): string {
  return `\`\`\`\n${diagnosticsText(diagnostics, main)}\n\`\`\`\n`;
}

/**
 * Whether a typed prompt's value is worth echoing: it ends with a bare expression statement
 * that is not a think (a think used as a statement shows its answer already).
 */
function echoesValue(program: Program | null): boolean {
  const last = program?.body.at(-1);
  return last !== undefined && last.kind === "ExprStmt" && last.expr.kind !== "Think";
}

/** The kind of a JSON value, as `typeof(v)` names it. */
function valueKind(value: JsonValue): string {
  if (Array.isArray(value)) return "array";
  return value === null ? "null" : typeof value;
}
