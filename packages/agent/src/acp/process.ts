/**
 * The agent process: spawned in its own process group, spoken to in newline-delimited
 * JSON-RPC over stdio, killed by group. Anything on stdout that is not a JSON-RPC message
 * is a fault (`garbage`), recorded so every pending request fails with a clear message.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk/unstable";
import { AgentCodes, type AgentCode } from "../errors.js";

export type AgentCommand = string | { command: string; args?: string[] };

export interface AgentProcessOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  onStderr?: (text: string) => void;
}

export interface ProcessFault {
  code: AgentCode;
  message: string;
}

const STDERR_TAIL = 4000;
/** The longest message line read from the agent (docs/errors/agent.md, PW4005): 64 MiB. */
export const MAX_MESSAGE_LINE = 64 * 1024 * 1024;
const EARLY_STDERR = 64 * 1024;

export class AgentProcess {
  readonly child: ChildProcess;
  readonly stream: Stream;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first fault seen (garbage, exit, spawn error), if any. */
  fault: ProcessFault | null = null;
  private stderrTail = "";
  /** Where stderr text goes; until one is set (`listenStderr`), it is kept (the first 64 KB). */
  private stderrListener: ((text: string) => void) | undefined;
  private earlyStderr = "";
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private killing = false;
  private readonly faultListeners = new Set<(fault: ProcessFault) => void>();
  /** Ids of the requests sent to the agent and not yet answered: an answer to any other is noise. */
  private readonly sentIds = new Set<string | number>();
  private noiseListener: ((message: string) => void) | undefined;

  constructor(command: AgentCommand, options: AgentProcessOptions) {
    const [file, args] =
      typeof command === "string" ? ["/bin/sh", ["-c", `exec ${command}`]] : [command.command, command.args ?? []];
    this.child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        if (!this.killing) {
          const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
          this.setFault(AgentCodes.agentExited, `the agent process ${how}${this.stderrSuffix()}`);
        }
        resolve(this.exitInfo);
      });
    });
    this.child.once("error", (error) => {
      this.setFault(AgentCodes.spawnFailed, `cannot start the agent: ${error.message}`);
    });
    this.child.stdin!.on("error", () => {
      /* EPIPE after the agent died: reported through `exit`. */
    });
    this.child.stderr!.setEncoding("utf8");
    this.stderrListener = options.onStderr;
    this.child.stderr!.on("data", (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
      if (this.stderrListener) this.stderrListener(text);
      else if (this.earlyStderr.length < EARLY_STDERR) this.earlyStderr += text.slice(0, EARLY_STDERR - this.earlyStderr.length);
    });
    this.stream = { readable: this.readable(), writable: this.writable() };
  }

  /** Sends stderr text to `listener` from now on, after what came before any listener (a process spawned early). */
  listenStderr(listener: (text: string) => void): void {
    this.stderrListener = listener;
    const early = this.earlyStderr;
    this.earlyStderr = "";
    if (early) listener(early);
  }

  /**
   * Protocol noise (an answer to a request that was never sent or already answered) goes to
   * `listener` (the run's `anomaly` events: `--verbose`, the trace) instead of the ACP
   * library, which would print it raw to stderr.
   */
  onNoise(listener: (message: string) => void): void {
    this.noiseListener = listener;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === null && this.child.pid !== undefined;
  }

  onFault(listener: (fault: ProcessFault) => void): () => void {
    this.faultListeners.add(listener);
    return () => this.faultListeners.delete(listener);
  }

  stderr(): string {
    return this.stderrTail;
  }

  stderrSuffix(): string {
    const tail = this.stderrTail.trim();
    if (!tail) return "";
    const lines = tail.split("\n").slice(-8).join("\n");
    return `\nagent stderr:\n${lines}`;
  }

  setFault(code: AgentCode, message: string): void {
    if (this.fault) return;
    this.fault = { code, message };
    for (const listener of this.faultListeners) listener(this.fault);
  }

  /** After the connection dropped: give the exit a moment to arrive so the fault names it. */
  async settle(ms = 500): Promise<ProcessFault | null> {
    if (this.fault || this.exitInfo) return this.fault;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
    return this.fault;
  }

  /** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves when the leader is gone. */
  async kill(graceMs = 300): Promise<void> {
    this.killing = true;
    const pid = this.child.pid;
    if (pid === undefined) return;
    signalGroup(pid, "SIGTERM");
    if (this.exitInfo === null) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    // Children of the agent (MCP relays, tools) may outlive their parent: kill the group.
    signalGroup(pid, "SIGKILL");
    await this.exited;
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }

  /** Synchronous last-resort kill (process `exit` handler). */
  killNow(): void {
    this.killing = true;
    if (this.child.pid !== undefined) signalGroup(this.child.pid, "SIGKILL");
  }

  private readable(): ReadableStream<AnyMessage> {
    const stdout = this.child.stdout!;
    stdout.setEncoding("utf8");
    // The line being read, as its chunks: each chunk is searched for a line break once, so a
    // line of any length is read in linear time (a growing string searched from its start on
    // every chunk took 11 s for 50 MB).
    let pending: string[] = [];
    let pendingLength = 0;
    let done = false;
    return new ReadableStream<AnyMessage>({
      cancel: () => {
        done = true;
        stdout.removeAllListeners("data");
      },
      start: (controller) => {
        const fail = (line: string) => {
          const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
          this.setFault(
            AgentCodes.garbage,
            `the agent wrote something that is not an ACP message to its stdout: ${JSON.stringify(shown)}`,
          );
          stdout.removeAllListeners("data");
          done = true;
          controller.error(new Error(this.fault!.message));
        };
        const tooLong = () => {
          this.setFault(
            AgentCodes.garbage,
            `the agent wrote a message line longer than ${MAX_MESSAGE_LINE / 1024 / 1024} MiB to its stdout (it starts ${JSON.stringify(pending[0]!.slice(0, 200))}…)`,
          );
          stdout.removeAllListeners("data");
          done = true;
          pending = [];
          controller.error(new Error(this.fault!.message));
        };
        stdout.on("data", (chunk: string) => {
          if (done) return;
          let from = 0;
          let newline = chunk.indexOf("\n");
          if (newline < 0) {
            pending.push(chunk);
            pendingLength += chunk.length;
            if (pendingLength > MAX_MESSAGE_LINE) tooLong();
            return;
          }
          while (newline >= 0) {
            const piece = chunk.slice(from, newline);
            const whole = pending.length === 0 ? piece : pending.join("") + piece;
            pending = [];
            pendingLength = 0;
            from = newline + 1;
            newline = chunk.indexOf("\n", from);
            if (whole.length > MAX_MESSAGE_LINE) {
              pending = [whole];
              tooLong();
              return;
            }
            const line = whole.trim();
            if (!line) continue;
            let message: unknown;
            try {
              message = JSON.parse(line);
            } catch {
              fail(line);
              return;
            }
            if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
              fail(line);
              return;
            }
            if (done) return;
            if (!this.expected(message as { id?: unknown; method?: unknown })) continue;
            controller.enqueue(message as AnyMessage);
          }
          if (from < chunk.length) {
            pending.push(chunk.slice(from));
            pendingLength = chunk.length - from;
          }
        });
        stdout.once("end", () => {
          if (done) return;
          done = true;
          controller.close();
        });
      },
    });
  }

  /** A request or notification of the agent, or the answer to a request sent to it; anything else is reported as noise. */
  private expected(message: { id?: unknown; method?: unknown }): boolean {
    if (typeof message.method === "string") return true;
    const id = message.id;
    if ((typeof id === "string" || typeof id === "number") && this.sentIds.delete(id)) return true;
    const what = id === undefined ? "a message that is neither a request, a notification nor an answer" : `an answer to a request Patchwork did not send (id ${JSON.stringify(id)})`;
    this.noiseListener?.(`the agent sent ${what}; ignored`);
    return false;
  }

  private writable(): WritableStream<AnyMessage> {
    const stdin = this.child.stdin!;
    return new WritableStream<AnyMessage>({
      write: (message) => {
        const sent = message as { id?: unknown; method?: unknown };
        if (typeof sent.method === "string" && (typeof sent.id === "string" || typeof sent.id === "number")) this.sentIds.add(sent.id);
        if (stdin.destroyed || !stdin.writable) return;
        stdin.write(`${JSON.stringify(message)}\n`);
      },
      close: () => {
        stdin.end();
      },
    });
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* ESRCH: the group is gone */
  }
}
