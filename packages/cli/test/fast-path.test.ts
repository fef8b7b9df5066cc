// The fast path (main.ts, `fastRunArgs`) reads the common `run` command lines without yargs; it
// must read them exactly as yargs does, and leave every other command line to yargs.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastRunArgs, yargsRunArgs } from "../src/main.js";
import type { RunArgs } from "../src/run-command.js";

/** The fields of `RunArgs` (yargs adds aliases, `_` and `$0`, which nothing reads). */
const FIELDS = [
  "file", "agent", "noAgent", "entry", "args", "arg", "maxWorkers", "keepSession", "entryOption", "cwd", "askUser",
  "mcpTransport", "permissions", "timeout", "idleTimeout", "restartAgentAfter", "verbose", "trace", "traceTextLimit",
  "record", "replay", "replayMissing", "resume", "noCache", "json",
] as const;

function fields(args: RunArgs | undefined): Partial<RunArgs> | undefined {
  if (!args) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of FIELDS) {
    const value = args[key];
    // yargs gives an empty array for an absent variadic positional: the same as none.
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) out[key] = value;
  }
  return out as Partial<RunArgs>;
}

const agree = async (argv: string[]) => {
  const fast = fastRunArgs(argv);
  if (fast !== undefined) expect(fields(fast), argv.join(" ")).toEqual(fields(await yargsRunArgs(argv)));
  return fast !== undefined;
};

describe("the fast path reads run's command lines as yargs does", () => {
  it("the common forms take the fast path and agree", async () => {
    const lines = [
      ["run", "a.pw"],
      ["run", "a.pw", "--agent", "claude"],
      ["run", "a.pw", "--agent=node agent.js --flag"],
      ["run", "a.pw", "greet", "Ada", "42"],
      ["run", "a.pw", "--verbose", "greet", "--agent", "codex", "Ada"],
      ["run", "a.pw", "-v", "--no-agent", "--no-cache", "--keep-session", "--ask-user"],
      ["run", "dir/b.pw", "x", "--agent", "gemini", "y", "z"],
      // Options before the file, as the tutorial writes them.
      ["run", "--no-agent", "a.pw"],
      ["run", "--agent", "claude", "--verbose", "a.pw", "greet", "Ada"],
      ["run", "-v", "--no-cache", "a.pw"],
      ["run", "--timeout", "5", "a.pw"],
      ["run", "a.pw", "--timeout=0.5", "--idle-timeout", "30"],
      ["run", "--entry", "greet", "a.pw", "Ada"],
      ["run", "a.pw", "--trace", "t.jsonl", "--record=c.json"],
      ["run", "--replay", "c.json", "a.pw", "--cwd", "dir"],
      // Resuming a killed recording (its start-up is measured against a no-agent run's).
      ["run", "a.pw", "--agent", "claude", "--resume", "c.json"],
      ["run", "--resume=c.json", "a.pw", "--agent", "claude"],
      ["run", "a.pw", "--replay", "c.json", "--replay-missing", "agent", "--agent", "claude"],
      ["run", "a.pw", "--replay", "c.json", "--replay-missing=error"],
    ];
    for (const argv of lines) expect(await agree(argv), argv.join(" ")).toBe(true);
  });

  it("leaves other command lines to yargs", () => {
    for (const argv of [
      ["run", "a.pw", "--timeout", "-5"],
      ["run", "a.pw", "--timeout", "5s"],
      ["run", "a.pw", "--timeout", "1e3"],
      ["run", "a.pw", "--entry"],
      ["run", "a.pw", "--max-workers", "2"],
      ["run", "a.pw", "--replay-missing", "ask"],
      ["run", "a.pw", "--replay-missing"],
      ["run", "a.pw", "--resume"],
      ["run", "a.pw", "--agent"],
      ["run", "a.pw", "--agent", "--verbose"],
      ["run", "a.pw", "--agent", "a", "--agent", "b"],
      ["run", "a.pw", "-v", "--verbose"],
      ["run", "a.pw", "--verbose=true"],
      ["run", "a.pw", "--", "x"],
      ["run", "a.pw", ""],
      ["run", "--agent", "x"],
      ["run", "--help", "a.pw"],
      ["check", "a.pw"],
    ])
      expect(fastRunArgs(argv), argv.join(" ")).toBeUndefined();
  });

  it("agrees with yargs on generated command lines, options in any position", async () => {
    const token = fc.oneof(
      fc.constantFrom("--agent", "--no-agent", "--verbose", "-v", "--keep-session", "--ask-user", "--no-cache", "--entry", "--timeout", "--", "-x"),
      fc.constantFrom("--idle-timeout", "--cwd", "--trace", "--record", "--replay", "--resume", "--replay-missing", "--max-workers", "--help", "--json"),
      fc.constantFrom("claude", "greet", "Ada", "42", "a b", "--agent=codex", "--agent=", "x=y", "-1", "5", "0.5", "007", "1e3", "--timeout=2", "agent", "error"),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 4 }), fc.array(token, { maxLength: 5 }), async (before, after) => {
        await agree(["run", ...before, "a.pw", ...after]);
      }),
      { numRuns: 400 },
    );
  }, 120_000); // 400 yargs parses: over 30 s on a loaded two-core machine

  it("each option the fast path knows is read the same before the file and after it", () => {
    const options = [["--no-agent"], ["--json"], ["-v"], ["--no-cache"], ["--keep-session"], ["--ask-user"], ["--agent", "claude"], ["--timeout", "5"], ["--idle-timeout", "9"], ["--cwd", "d"], ["--trace", "t.jsonl"], ["--record", "c.json"], ["--replay", "c.json"], ["--resume", "c.json"], ["--replay-missing", "agent"], ["--entry", "greet"]];
    for (const option of options) {
      const after = fastRunArgs(["run", "a.pw", "x", ...option]);
      expect(after, option.join(" ")).toBeDefined();
      expect(fastRunArgs(["run", ...option, "a.pw", "x"]), option.join(" ")).toEqual(after);
    }
  });
});
