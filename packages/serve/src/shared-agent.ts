/**
 * One agent process for everything a server runs: the panel's programs (`patchwork acp`) and
 * the tool calls of `patchwork mcp --agent`. It is started on first need, started again by the
 * next need after it died, and closed with the server. Each user of it gets an `AsyncAgent`
 * (`thinker`) whose thinks nest on a redirect stack of their own (the worker key is prefixed), so
 * that two panel sessions' programs, or two tool calls, think at once side by side; and, when
 * asked, whose `prepare` reaches the agent, so that sessions are made ahead for them as for
 * `patchwork run` (docs/agent.md, "Sessions made ahead").
 */
import type { AsyncAgent, RecyclingAgent } from "@patchwork/agent";

export class SharedAgent {
  private current: RecyclingAgent | null = null;
  private starting: Promise<RecyclingAgent> | null = null;
  private closed = false;

  /** `start`: starts a new process (its errors are the caller's to word). */
  constructor(private readonly start: () => Promise<RecyclingAgent>) {}

  /** The agent, started (again, after it died) on demand. */
  get(): Promise<RecyclingAgent> {
    if (this.closed) return Promise.reject(new Error("the server is closed"));
    const current = this.current;
    if (current && !current.dead) return Promise.resolve(current);
    if (current) {
      this.current = null;
      void current.close();
    }
    this.starting ??= this.launch().finally(() => (this.starting = null));
    return this.starting;
  }

  private async launch(): Promise<RecyclingAgent> {
    const agent = await this.start();
    if (this.closed) {
      await agent.close();
      throw new Error("the server is closed");
    }
    this.current = agent;
    return agent;
  }

  /**
   * Thinks answered by the shared agent, in `cwd`, nesting under `key` (one key per panel
   * session, per tool call). `ahead`: the program's `SessionHint` makes its first sessions
   * ahead of need. No `close`: the agent outlives the run that uses it.
   */
  thinker(key: string, cwd: string, options: { ahead: boolean }): AsyncAgent {
    const think: AsyncAgent["think"] = async (request, runChild, signal, context) =>
      (await this.get()).think(request, runChild, signal, { ...context, cwd, worker: `${key}:${context.worker ?? "main"}` });
    if (!options.ahead) return { think };
    return {
      think,
      prepare: (hint) => {
        this.get().then(
          (agent) => agent.prepare({ ...hint, cwd }),
          () => undefined, // a start that failed is reported by the think that needs the agent
        );
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const starting = this.starting;
    const current = this.current;
    this.current = null;
    await current?.close();
    await starting?.then(
      (agent) => agent.close(),
      () => undefined,
    );
  }
}
