// The historian (examples/historian/, the reference's demo ported to the language) end to end:
// the CLI runs its `narrate` skill in a real git repository, with the scripted ACP agent
// answering its thinks; three workers (analyst, narrator, scribe) on threads of their own.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { patchwork, repoRoot } from "./helpers.js";

const historian = join(repoRoot, "examples", "historian", "historian.pw");
const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
// Each run starts the CLI, four evaluator threads, the test agent and a dozen git processes.
vi.setConfig({ testTimeout: 300_000 });

interface Planned {
  message: string;
  files: string[];
}

/** The plan the scripted model gives: three commits, each with the files the scribe's think names. */
const PLAN: Planned[] = [
  { message: "Store a version in the model", files: ["src/model.txt", "src/old.txt"] },
  { message: "Add the parser", files: ["src/parser.txt", "src/tokens.txt"] },
  { message: "Document the parser", files: ["README.md", "docs/guide.md"] },
];

// The machine's git configuration (hooks, signing, diff settings) stays out: the repository
// configures what the tests need.
const gitEnv = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, ...gitEnv } }).trim();

let root: string;
let repo: string;

/** A repository with a base commit on main and a branch `feature` of four messy commits. */
function makeRepo(): void {
  root = mkdtempSync(join(tmpdir(), "pw-historian-"));
  repo = join(root, "repo");
  mkdirSync(repo);
  git(repo, "init", "--quiet", "-b", "main");
  git(repo, "config", "user.name", "Historian Test");
  git(repo, "config", "user.email", "historian@example.com");
  const put = (files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(repo, path, ".."), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
  };
  const commit = (message: string) => {
    git(repo, "add", "-A");
    git(repo, "commit", "--quiet", "-m", message);
  };
  put({ "README.md": "# App\n", "src/model.txt": "model v0\n", "src/old.txt": "to be removed\n" });
  commit("base");
  git(repo, "checkout", "--quiet", "-b", "feature");
  put({ "src/model.txt": "model v1\n", "src/parser.txt": "parser: wip\n" });
  commit("wip");
  put({ "src/parser.txt": "parser: done\n", "docs/guide.md": "How to parse\n", "src/tokens.txt": "tokens\n" });
  commit("more stuff");
  put({ "src/model.txt": "model v2\n", "README.md": "# App\n\nNow with a parser.\n" });
  git(repo, "rm", "--quiet", "src/old.txt");
  commit("fix things");
  put({ "src/parser.txt": "parser: done, really\n" });
  commit("typo");
}

/** The scripted agent's command, answering the analyst's, the scribe's and narrate's thinks. */
function agent(plan: Planned[], buildCommand: string): string {
  return `"${process.execPath}" "${testAgent}" "${agentScript(plan, buildCommand)}"`;
}

/** The script of the scripted agent (a file in the test's folder). */
function agentScript(plan: Planned[], buildCommand: string): string {
  const json = (value: unknown) => "```json\n" + JSON.stringify(value) + "\n```";
  const script = {
    prompts: [
      { match: "lightweight build", steps: [{ reply: buildCommand }] },
      {
        match: "Plan a clean history for the branch `feature`",
        steps: [{ reply: json(plan.map((c) => ({ message: c.message, description: `the changes for: ${c.message}` }))) }],
      },
      ...plan.map((c) => ({ match: `Commit message: ${c.message}\n`, steps: [{ reply: json(c.files) }] })),
      // The report repeats its prompt, so the output shows what the program put in it.
      { match: "Report success", steps: [{ reply: "REPORT: {{prompt}}" }] },
    ],
  };
  const path = join(root, "agent.json");
  writeFileSync(path, JSON.stringify(script));
  return path;
}

function narrate(agentCommand: string) {
  return patchwork(["run", historian, "narrate", "Add a parser", "--agent", agentCommand], { cwd: repo, env: gitEnv, timeoutMs: 120_000 });
}

/** Everything about the repository a failed run must leave as it was. */
function snapshot() {
  return {
    branches: git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
    head: git(repo, "symbolic-ref", "HEAD"),
    status: git(repo, "status", "--porcelain"),
    model: readFileSync(join(repo, "src/model.txt"), "utf8"),
  };
}

const cleanBranches = () => git(repo, "branch", "--list", "feature-*-clean", "--format=%(refname:short)").split("\n").filter(Boolean);
const filesOf = (commit: string) => git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", commit).split("\n").sort();
/** The line and column (1-based) of `text` in an example file. */
function positionOf(file: string, text: string): string {
  const lines = readFileSync(join(repoRoot, "examples", "historian", file), "utf8").split("\n");
  const line = lines.findIndex((l) => l.includes(text));
  expect(line).toBeGreaterThanOrEqual(0);
  return `${line + 1}:${lines[line]!.indexOf(text) + 1}`;
}

beforeEach(makeRepo);
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the historian (examples/historian)", () => {
  it("rewrites the branch into the planned commits on a new clean branch, leaving the original untouched", () => {
    const feature = git(repo, "rev-parse", "feature");
    const base = git(repo, "rev-parse", "main");
    // The build runs in the repository after each commit; it records which commit it saw.
    const r = narrate(agent(PLAN, "git log -1 --format=%s >> ../builds.log"));
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.status).toBe(0);

    const [clean, ...others] = cleanBranches();
    expect(others).toEqual([]);
    expect(clean).toMatch(/^feature-\d{8}-\d{6}-clean$/);
    const commits = git(repo, "rev-list", "--reverse", `main..${clean}`).split("\n");
    expect(commits).toHaveLength(PLAN.length);
    expect(git(repo, "rev-parse", `${commits[0]}^`)).toBe(base);
    expect(git(repo, "log", "--reverse", "--format=%s", `main..${clean}`).split("\n")).toEqual(PLAN.map((c) => c.message));
    commits.forEach((c, i) => expect(filesOf(c)).toEqual([...PLAN[i]!.files].sort()));
    // The history is new, the end result the same.
    expect(git(repo, "rev-parse", `${clean}^{tree}`)).toBe(git(repo, "rev-parse", "feature^{tree}"));
    expect(git(repo, "rev-parse", "feature")).toBe(feature);
    expect(git(repo, "symbolic-ref", "--short", "HEAD")).toBe("feature");
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(root, "builds.log"), "utf8")).toBe(PLAN.map((c) => `${c.message}\n`).join(""));

    // The report's prompt carries what the narrator returned: branches, count, each commit.
    expect(r.stdout).toContain(`REPORT: The subagents successfully rewrote feature to clean branch ${clean}.\n`);
    expect(r.stdout).toContain(`The commits created were ${PLAN.length}:\n`);
    PLAN.forEach((c, i) => expect(r.stdout).toContain(`- ${commits[i]!.slice(0, 12)} ${c.message} (${c.files.join(", ")})\n`));
    // The workers' progress, on stderr.
    expect(r.stderr).toContain(`[analyst] Created clean branch ${clean} at ${base.slice(0, 12)}\n`);
    expect(r.stderr).toContain("[narrator] Validation successful: the trees match\n");
  });

  it("adds the changes the plan left out to the last commit, so the trees still match", () => {
    // README.md is in no commit of this plan.
    const plan = [PLAN[0]!, PLAN[1]!, { message: "Document the parser", files: ["docs/guide.md"] }];
    const r = narrate(agent(plan, "none"));
    expect(r.status).toBe(0);
    const [clean] = cleanBranches();
    const commits = git(repo, "rev-list", "--reverse", `main..${clean}`).split("\n");
    expect(commits).toHaveLength(3);
    expect(filesOf(commits[2]!)).toEqual(["README.md", "docs/guide.md"]);
    expect(git(repo, "log", "-1", "--format=%s", clean!)).toBe("Document the parser");
    expect(git(repo, "rev-parse", `${clean}^{tree}`)).toBe(git(repo, "rev-parse", "feature^{tree}"));
    expect(r.stderr).toContain("[narrator] The trees differ: adding the remaining changes to the last commit\n");
    expect(r.stderr).not.toContain("Build passed");
  });

  it("fails in the analyst on a dirty working tree, cancels the other workers and changes nothing", () => {
    writeFileSync(join(repo, "src/model.txt"), "uncommitted\n");
    const before = snapshot();
    const r = narrate(agent(PLAN, "none"));
    // Not null: the narrator and the scribe, waiting on their mailboxes, were stopped.
    expect(r.status).toBe(1);
    const at = positionOf("analyst.pw", 'throw "the working tree is not clean');
    expect(r.stderr).toContain(
      `analyst.pw:${at}: error[PW3001]: worker 'analyst' failed: uncaught exception: the working tree is not clean: commit or stash these changes first:\n M src/model.txt\n(the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)\n`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe("");
    expect(snapshot()).toEqual(before);
    expect(cleanBranches()).toEqual([]);
  });

  it("fails in the analyst when the plan does not fit its type, before any branch is made", () => {
    const before = snapshot();
    const script = JSON.parse(readFileSync(agentScript(PLAN, "none"), "utf8")) as { prompts: { match: string; steps: unknown[] }[] };
    script.prompts.find((p) => p.match.startsWith("Plan a clean history"))!.steps = [{ reply: '```json\n{"commits": 3}\n```' }];
    writeFileSync(join(root, "agent.json"), JSON.stringify(script));
    const r = narrate(`"${process.execPath}" "${testAgent}" "${join(root, "agent.json")}"`);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/analyst\.pw:\d+:\d+: error\[PW3030\]: worker 'analyst' failed: /);
    expect(snapshot()).toEqual(before);
    expect(cleanBranches()).toEqual([]);
  });

  it("says it needs an agent when run without one (--no-agent), changing nothing", () => {
    const before = snapshot();
    const r = patchwork(["run", historian, "narrate", "Add a parser", "--no-agent"], { cwd: repo, env: gitEnv, timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`analyst.pw:${positionOf("analyst.pw", 'throw "the historian needs an agent')}: error[PW3001]: worker 'analyst' failed`);
    expect(snapshot()).toEqual(before);
    expect(cleanBranches()).toEqual([]);
  });

  it("fails in the narrator when the scribe reports a commit whose build fails, back on the original branch", () => {
    const feature = git(repo, "rev-parse", "feature");
    const r = narrate(agent(PLAN, "echo 'model is broken' >&2; exit 3"));
    expect(r.status).toBe(1);
    const at = positionOf("narrator.pw", 'throw "commit ${num}');
    expect(r.stderr).toContain(
      `narrator.pw:${at}: error[PW3001]: worker 'narrator' failed: uncaught exception: commit 1 of 3 ("Store a version in the model") failed: the build`,
    );
    expect(r.stderr).toContain("model is broken");
    expect(r.stdout).not.toContain("REPORT");
    // The user is back where they started; the partial branch (one commit) is kept for a look.
    expect(git(repo, "symbolic-ref", "--short", "HEAD")).toBe("feature");
    expect(git(repo, "rev-parse", "feature")).toBe(feature);
    expect(git(repo, "status", "--porcelain")).toBe("");
    const [clean] = cleanBranches();
    expect(git(repo, "log", "--format=%s", `main..${clean}`)).toBe("Store a version in the model");
  });
});
