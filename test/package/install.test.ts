// The CLI as users install it (npm run test:package; CI runs it from .ci/run): `npm pack` of
// packages/cli gives one tarball, which installs with no build step and no workspace
//   - globally, into a temporary prefix (`npm install -g --prefix …`): the `patchwork` command
//     runs programs from a directory outside the repository, thinks included (scripted agent);
//   - into a fresh project (`npm install ./patchwork-cli-….tgz`): the library entry points;
//   - through `npx -y --package=./patchwork-cli-….tgz patchwork`;
//   - every install form the docs show, as written (install-forms.ts).
// npm uses the registry and cache as configured (the tarball's own dependencies come from
// there); nothing else is reached. Slow (three installs), hence not part of `npm test`.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formWords, installForms } from "./install-forms.js";

const repo = join(import.meta.dirname, "..", "..");
const cliDir = join(repo, "packages", "cli");
const version = JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8")).version as string;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

let root: string;
let tarball: string;
let packed: string[];
let prefix: string;
/** A directory outside the repository, where the programs are. */
let work: string;

/** PATH with the install prefix's bin and this Node, nothing of the repository. */
const env = () => ({ ...process.env, PATH: `${join(prefix, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin`, PATCHWORK_AGENT: "" });

function sh(command: string, args: string[], cwd: string, input = "") {
  const r = spawnSync(command, args, { cwd, env: env(), encoding: "utf8", input, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pw-package-"));
  prefix = join(root, "prefix");
  work = join(root, "work");
  mkdirSync(work);
  const out = execFileSync(npm, ["pack", "--json", "--pack-destination", root], { cwd: cliDir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const [info] = JSON.parse(out.slice(out.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  tarball = join(root, info!.filename);
  packed = info!.files.map((f) => f.path);
  execFileSync(npm, ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], { cwd: root, stdio: "pipe" });
  writeFileSync(join(work, "hello.pw"), readFileSync(join(repo, "examples", "hello.pw")));
}, 300_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("npm pack of the CLI", () => {
  it("is one tarball named patchwork-cli-VERSION.tgz with the launcher and the bundle only", () => {
    expect(tarball.endsWith(`patchwork-cli-${version}.tgz`)).toBe(true);
    expect(packed).toContain("bin/patchwork.js");
    expect(packed).toContain("bundle/index.js");
    expect(packed).toContain("bin/patchwork-test-agent.js");
    expect(packed).toContain("README.md");
    const outside = packed.filter((p) => !/^(bin|bundle)\//.test(p) && !["package.json", "README.md"].includes(p));
    expect(outside).toEqual([]);
    // No compiled-per-package code (it imports the workspace packages, which are not published).
    const manifest = JSON.parse(execFileSync("tar", ["-xOzf", tarball, "package/package.json"], { encoding: "utf8" }));
    expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith("@patchwork/"))).toEqual([]);
  });
});

describe("npm install -g of the tarball", () => {
  it("gives a `patchwork` command that prints its version", () => {
    const r = sh("patchwork", ["--version"], work);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.status).toBe(0);
  });

  it("runs and checks a program from a directory outside the repository", () => {
    const run = sh("patchwork", ["run", "hello.pw"], work);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("Hello, world!\n");
    expect(run.status).toBe(0);
    expect(sh("patchwork", ["check", "hello.pw"], work).status).toBe(0);
    // Off the fast path: yargs, installed as a dependency of the package.
    const viaYargs = sh("patchwork", ["run", "hello.pw", "--no-agent"], work);
    expect(viaYargs.stdout).toBe("Hello, world!\n");
    expect(sh("patchwork", ["--help"], work).stdout).toMatch(/run <file>/);
    const bad = sh("patchwork", ["check", "missing.pw"], work);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("missing.pw: no such file");
  });

  it("runs a think with a do block against the scripted ACP test agent shipped in the package", () => {
    const script = join(work, "script.json");
    writeFileSync(script, JSON.stringify({ prompts: [{ steps: [{ do: 0 }, { reply: "RECEIPT" }] }] }));
    writeFileSync(join(work, "think.pw"), 'var r = think {\n    Run it.\n    do {\n        print("block ran")\n    }\n}\nprint("got: ${r}")\n');
    const testAgent = join(prefix, "lib", "node_modules", "@patchwork", "cli", "bundle", "test-agent.js");
    const r = sh("patchwork", ["run", "think.pw", "--agent", `"${process.execPath}" "${testAgent}" "${script}"`], work);
    // Nothing on stderr but the run's summary of what it asked and spent (docs/cli.md).
    const SUMMARY = /^patchwork: 1 think asked, 0 replayed, 0 retried, 0 failed · tokens not reported · cost not reported by the agent · \d+\.\d s\n$/;
    expect(r.stderr).toMatch(SUMMARY);
    expect(r.stdout).toBe("block ran\ngot: RECEIPT\n");
    expect(r.status).toBe(0);
    // The same agent as a command of its own, as the tutorial writes it after `npm install -g`.
    const bin = sh("patchwork", ["run", "think.pw", "--agent", "patchwork-test-agent script.json"], work);
    expect(bin.stderr).toMatch(SUMMARY);
    expect(bin.stdout).toBe("block ran\ngot: RECEIPT\n");
    expect(bin.status).toBe(0);
  });
});

describe("npm install of the tarball into a project", () => {
  it("gives the library entry points", () => {
    const project = join(root, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
    execFileSync(npm, ["install", "--no-audit", "--no-fund", tarball], { cwd: project, stdio: "pipe", env: env() });
    writeFileSync(
      join(project, "use.js"),
      [
        'import { parse } from "@patchwork/cli/parser";',
        'import { run, NoAgent } from "@patchwork/cli/interpreter";',
        'import { runWithAgent } from "@patchwork/cli/agent";',
        'import { cli } from "@patchwork/cli";',
        'const { program } = parse("var x = 1\\n");',
        'const r = run(\'print("sum: ${1 + 2}")\\n\', { agent: new NoAgent() });',
        'console.log(program.body[0].kind, r.output.trim(), typeof runWithAgent, typeof cli);',
      ].join("\n"),
    );
    const r = sh(process.execPath, ["use.js"], project);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("sum: 3\nVarDecl sum: 3 function function\n"); // run() prints as it goes, and returns the output
  });
});

describe("npx of the tarball", () => {
  it("runs a program", () => {
    const r = sh(npm, ["exec", "--yes", `--package=${tarball}`, "--", "patchwork", "run", "hello.pw"], work);
    expect(r.stdout).toBe("Hello, world!\n");
    expect(r.status).toBe(0);
  });
});

// Each command line of the docs that installs or runs the tarball, executed as written (its
// tarball path replaced by the one packed here, `/abs/path/` by a folder of this test).
describe("the install forms the docs show", () => {
  const forms = installForms(repo);
  const seen = new Set<string>();
  const distinct = forms.filter((f) => !seen.has(f.line) && seen.add(f.line));

  it.each(distinct.map((f) => [`${f.where}: ${f.line}`, f] as const))("%s", (_, form) => {
    const words = formWords(form, tarball).map((w) => w.replace(/^\/abs\/path\//, `${work}/`));
    const place = mkdtempSync(join(root, "form-"));
    if (form.kind === "global") {
      const own = join(place, "prefix");
      execFileSync(npm, [...words.slice(1), "--prefix", own, "--no-audit", "--no-fund"], { cwd: place, stdio: "pipe" });
      const r = spawnSync(join(own, "bin", "patchwork"), ["--version"], { cwd: work, encoding: "utf8" });
      expect(r.error?.message ?? r.stdout).toBe(`${version}\n`);
    } else if (form.kind === "project") {
      writeFileSync(join(place, "package.json"), JSON.stringify({ name: "user-project", private: true }));
      execFileSync(npm, [...words.slice(1), "--no-audit", "--no-fund"], { cwd: place, stdio: "pipe", env: env() });
      const r = spawnSync(join(place, "node_modules", ".bin", "patchwork"), ["run", "hello.pw"], { cwd: work, encoding: "utf8" });
      expect(r.stdout).toBe("Hello, world!\n");
    } else {
      // npx …: as written; a form that only starts patchwork (plugins.md's --patchwork) is asked its version.
      const [, ...rest] = words;
      const patchworkAt = rest.indexOf("patchwork");
      const args = patchworkAt === rest.length - 1 ? [...rest, "--version"] : rest;
      if (args.includes("mcp")) mkdirSync(join(work, "skills"), { recursive: true });
      const r = sh("npx", args, work);
      expect(r.status, r.stderr).toBe(0);
      if (args.includes("run")) expect(r.stdout).toBe("Hello, world!\n");
      else if (args.includes("mcp")) expect(r.stderr).toContain("patchwork mcp: 0 tool(s)");
      else expect(r.stdout).toBe(`${version}\n`);
    }
  });
});
