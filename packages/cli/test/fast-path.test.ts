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
  "record", "replay", "replayMissing", "noCache",
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
    ];
    for (const argv of lines) expect(await agree(argv), argv.join(" ")).toBe(true);
  });

  it("leaves other command lines to yargs", () => {
    for (const argv of [
      ["run", "a.pw", "--timeout", "5"],
      ["run", "a.pw", "--entry", "greet"],
      ["run", "a.pw", "--agent"],
      ["run", "a.pw", "--agent", "--verbose"],
      ["run", "a.pw", "--agent", "a", "--agent", "b"],
      ["run", "a.pw", "-v", "--verbose"],
      ["run", "a.pw", "--verbose=true"],
      ["run", "a.pw", "--", "x"],
      ["run", "a.pw", ""],
      ["run", "--agent", "x", "a.pw"],
      ["check", "a.pw"],
    ])
      expect(fastRunArgs(argv), argv.join(" ")).toBeUndefined();
  });

  it("agrees with yargs on generated command lines", async () => {
    const token = fc.oneof(
      fc.constantFrom("--agent", "--no-agent", "--verbose", "-v", "--keep-session", "--ask-user", "--no-cache", "--entry", "--timeout", "--", "-x"),
      fc.constantFrom("claude", "greet", "Ada", "42", "a b", "--agent=codex", "--agent=", "x=y", "-1"),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 6 }), async (rest) => {
        await agree(["run", "a.pw", ...rest]);
      }),
      { numRuns: 300 },
    );
  }, 120_000); // 300 yargs parses: over 30 s on a loaded two-core machine
});
