// The plugin writer of `patchwork plugin` on real files: what each generated file says, the
// copies of the programs and their imports, tool names shared with servedEntries, and errors.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "@patchwork/parser";
import { buildCatalog, fileHeader, PluginError, servedEntries, writePlugin } from "../dist/index.js";

const repo = resolve(import.meta.dirname, "../../..");
const skills = join(repo, "test/agents/skills");

function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "pw-plugin-test-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const read = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");
const readJson = (dir: string, path: string) => JSON.parse(read(dir, path));

/** The YAML frontmatter of a Markdown file as key → raw value, and its body. */
function frontmatter(text: string): { fields: Record<string, string>; body: string } {
  const m = /^---\n([^]*?)\n---\n([^]*)$/.exec(text);
  if (!m) throw new Error(`no frontmatter in:\n${text}`);
  const fields: Record<string, string> = {};
  for (const line of m[1]!.split("\n")) {
    const i = line.indexOf(": ");
    fields[line.slice(0, i)] = line.slice(i + 2);
  }
  return { fields, body: m[2]! };
}

describe("patchwork plugin: the reference's greeter", () => {
  const out = join(folder(), "greeter-plugin");
  const r = writePlugin({ files: [join(skills, "greeter.pw")], out, agent: "claude" });

  it("plugin.json is the reference's expected manifest", () => {
    expect(readJson(out, ".claude-plugin/plugin.json")).toEqual(JSON.parse(readFileSync(join(skills, "greeter.expected_manifest.json"), "utf8")));
    expect(r.meta.name).toBe("greeter");
  });

  it("writes exactly the plugin's files", () => {
    expect(r.written).toEqual([".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", ".mcp.json", "pw/greeter.pw", "skills/greet/SKILL.md"]);
    for (const f of r.written) expect(existsSync(join(out, f)), f).toBe(true);
    expect(read(out, "pw/greeter.pw")).toBe(readFileSync(join(skills, "greeter.pw"), "utf8"));
    expect(r.skills).toEqual([{ name: "greeter:greet", tool: "greet" }]);
    expect(r.commands).toEqual([]);
  });

  it("SKILL.md: name, the doc comment as description, the MCP tool to call and its parameter", () => {
    const { fields, body } = frontmatter(read(out, "skills/greet/SKILL.md"));
    expect(fields.name).toBe("greet");
    expect(JSON.parse(fields.description!)).toBe("Greets a user with a personalized message");
    expect(fields["allowed-tools"]).toBe("mcp__plugin_greeter_patchwork__greet");
    expect(body).toContain("# greeter:greet");
    expect(body).toContain("call the MCP tool `greet` of the plugin's `patchwork` server");
    expect(body).toContain("`mcp__plugin_greeter_patchwork__greet`");
    expect(body).toContain("- `name` (string, required)");
  });

  it(".mcp.json starts patchwork mcp on the plugin's own copy, with --agent baked in", () => {
    expect(readJson(out, ".mcp.json")).toEqual({
      mcpServers: { patchwork: { command: "patchwork", args: ["mcp", "${CLAUDE_PLUGIN_ROOT}/pw/greeter.pw", "--agent", "claude"] } },
    });
  });

  it("marketplace.json lists the plugin at its own folder", () => {
    const m = readJson(out, ".claude-plugin/marketplace.json");
    expect(m.name).toBe("patchwork-greeter");
    expect(r.marketplace).toBe("patchwork-greeter");
    expect(m.plugins).toEqual([{ name: "greeter", source: "./", description: "greeter plugin", version: "0.1.0", author: { name: "Patchwork Compiler" } }]);
  });
});

describe("patchwork plugin: names, headers, commands, imports", () => {
  it("the trait's name in kebab-case; version, description and author from the header comment", () => {
    const dir = folder({
      "interp.pw": `# Variable Interpolation Test
# Tests that think blocks correctly receive variable bindings
#
# Later paragraphs are not the description.
# version: 2.1.0
# author: Ada
worker w(name) { print(name) }

export default trait InterpolationTest: Agent {
    # Tests variable interpolation in think blocks
    # @param name who to greet
    # @param count: how many times
    @skill test
    fun test(name: string, count: number) {
        self.delegate([w(name)]).await
    }
}
`,
    });
    const r = writePlugin({ files: ["interp.pw"], out: "out", cwd: dir });
    expect(readJson(r.dir, ".claude-plugin/plugin.json")).toEqual({
      name: "interpolation-test",
      version: "2.1.0",
      description: "Variable Interpolation Test Tests that think blocks correctly receive variable bindings",
      author: { name: "Ada" },
    });
    const { fields, body } = frontmatter(read(r.dir, "skills/test/SKILL.md"));
    // @param lines leave the description and explain the parameters.
    expect(JSON.parse(fields.description!)).toBe("Tests variable interpolation in think blocks");
    expect(body).toContain("- `name` (string, required): who to greet");
    expect(body).toContain("- `count` (number, required): how many times");
    expect(body).toContain("# interpolation-test:test");
    // The MCP server's tool says the same: the doc text as description, @param lines on the parameters.
    const [tool] = buildCatalog(["interp.pw"], dir).tools;
    expect(tool!.description).toBe("Tests variable interpolation in think blocks");
    expect(tool!.inputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string", description: "who to greet" }, count: { type: "number", description: "how many times" } },
      required: ["name", "count"],
    });
    // Without --agent, none is baked in.
    expect(readJson(r.dir, ".mcp.json").mcpServers.patchwork.args).toEqual(["mcp", "${CLAUDE_PLUGIN_ROOT}/pw/interp.pw"]);
  });

  it("@command: paired with its @skill it invokes the skill with $ARGUMENTS; alone it calls the tool", () => {
    const dir = folder({
      "tools.pw": `trait Tools: Agent {
    # Rewrites a branch
    @skill narrate
    @command narrate
    fun narrate(description: string) { print(description) }

    # Says hello
    @command hello
    fun hello(who, greeting: string | null) { print("hello " + who) }

    fun helper() {}
}
`,
    });
    const r = writePlugin({ files: [join(dir, "tools.pw")], out: join(dir, "out") });
    expect(r.skills).toEqual([{ name: "tools:narrate", tool: "narrate" }]);
    expect(r.commands).toEqual(["tools:narrate", "tools:hello"]);
    expect(r.written.filter((f) => f.startsWith("skills/") || f.startsWith("commands/"))).toEqual(["commands/hello.md", "commands/narrate.md", "skills/narrate/SKILL.md"]);
    const paired = frontmatter(read(r.dir, "commands/narrate.md"));
    expect(paired.body.trim()).toBe("Use the tools:narrate skill with these arguments: $ARGUMENTS");
    expect(JSON.parse(paired.fields["argument-hint"]!)).toBe("<description>");
    expect(paired.fields["allowed-tools"]).toBe("Skill(tools:narrate), mcp__plugin_tools_patchwork__narrate");
    const alone = frontmatter(read(r.dir, "commands/hello.md"));
    expect(JSON.parse(alone.fields.description!)).toBe("Says hello");
    expect(alone.body).toContain("Call the MCP tool `mcp__plugin_tools_patchwork__hello` (`hello(who, greeting: string | null)` of `tools.pw`) with these arguments: $ARGUMENTS");
    expect(alone.body).toContain("- `who` (string, required)\n- `greeting` (string | null, optional)\n");
    expect(JSON.parse(alone.fields["argument-hint"]!)).toBe("<who> <greeting>");
  });

  it("copies the imports too (transitively), keeping their layout; .mcp.json names only the files asked for", () => {
    const dir = folder({
      "app/main.pw": `import {helper} from "./lib/helper.pw"\nimport ./{sibling}\n# Greets\n@skill greet\nskill greet(name) { print(helper(name)) }\n`,
      "app/lib/helper.pw": `import {deep} from "../../shared/deep.pw"\nexport fun helper(n) { return deep(n) }\n`,
      "app/sibling.pw": `export fun s() {}\n`,
      "shared/deep.pw": `export fun deep(n) { return "hi " + n }\n`,
    });
    const r = writePlugin({ files: ["app/main.pw"], out: "p", cwd: dir });
    expect(r.written.filter((f) => f.startsWith("pw/"))).toEqual(["pw/app/lib/helper.pw", "pw/app/main.pw", "pw/app/sibling.pw", "pw/shared/deep.pw"]);
    expect(readJson(r.dir, ".mcp.json").mcpServers.patchwork.args).toEqual(["mcp", "${CLAUDE_PLUGIN_ROOT}/pw/app/main.pw"]);
    expect(r.meta.name).toBe("main");
  });

  it("two files with the same skill name: tool names prefixed as patchwork mcp prefixes them, skills kept apart", () => {
    const dir = folder({
      "greeter.pw": `export default trait Greeter: Agent {\n    @skill greet\n    fun greet(name) { print("a") }\n}\n`,
      "hello.pw": `export default trait Hello: Agent {\n    @skill greet\n    fun greet(name) { print("b") }\n    @skill wave\n    fun wave() {}\n}\n`,
    });
    const r = writePlugin({ files: ["greeter.pw", "hello.pw"], out: "p", cwd: dir, name: "My Tools", command: ["node", "/x/patchwork.js"] });
    expect(r.meta.name).toBe("my-tools");
    expect(r.skills).toEqual([
      { name: "my-tools:greeter-greet", tool: "greeter_greet" },
      { name: "my-tools:hello-greet", tool: "hello_greet" },
      { name: "my-tools:wave", tool: "wave" },
    ]);
    // The same names the MCP server offers for the same files in the same order (both from servedEntries).
    const served = servedEntries(["greeter.pw", "hello.pw"].map((f) => {
      const text = read(dir, f);
      return { fileName: join(dir, f), text, program: parse(text).program };
    }));
    expect(served.map((s) => s.tool)).toEqual(r.skills.map((s) => s.tool));
    expect(buildCatalog(["greeter.pw", "hello.pw"], dir).tools.map((t) => t.name)).toEqual(r.skills.map((s) => s.tool));
    expect(readJson(r.dir, ".mcp.json").mcpServers.patchwork).toEqual({
      command: "node",
      args: ["/x/patchwork.js", "mcp", "${CLAUDE_PLUGIN_ROOT}/pw/greeter.pw", "${CLAUDE_PLUGIN_ROOT}/pw/hello.pw"],
    });
    expect(frontmatter(read(r.dir, "skills/hello-greet/SKILL.md")).fields["allowed-tools"]).toBe("mcp__plugin_my-tools_patchwork__hello_greet");
  });

  it("a folder: its .pw files (not its subfolders), as patchwork mcp reads one; a folder without any is refused", () => {
    const dir = folder({
      "skills/b.pw": `export default trait Beta: Agent {\n    @skill two\n    fun two() {}\n}\n`,
      "skills/a.pw": `export default trait Alpha: Agent {\n    @skill one\n    fun one() {}\n}\n`,
      "skills/helpers.pw": `export fun h() {}\n`,
      "skills/deeper/c.pw": `@skill three\nskill three() {}\n`,
      "empty/notes.txt": "no programs here",
    });
    const r = writePlugin({ files: ["skills"], out: "p", cwd: dir });
    expect(r.meta.name).toBe("alpha");
    expect(r.skills).toEqual([
      { name: "alpha:one", tool: "one" },
      { name: "alpha:two", tool: "two" },
    ]);
    expect(readJson(r.dir, ".mcp.json").mcpServers.patchwork.args).toEqual(["mcp", "${CLAUDE_PLUGIN_ROOT}/pw/a.pw", "${CLAUDE_PLUGIN_ROOT}/pw/b.pw", "${CLAUDE_PLUGIN_ROOT}/pw/helpers.pw"]);
    expect(() => writePlugin({ files: ["empty"], out: "q", cwd: dir })).toThrow(/^empty: a folder without \.pw files$/);
  });

  it("writing again replaces the plugin (a skill gone is gone); a folder that is no plugin is refused", () => {
    const dir = folder({ "a.pw": `@skill one\nskill one() {}\n@skill two\nskill two() {}\n` });
    writePlugin({ files: ["a.pw"], out: "p", cwd: dir });
    expect(existsSync(join(dir, "p/skills/two/SKILL.md"))).toBe(true);
    writeFileSync(join(dir, "a.pw"), `@skill one\nskill one() {}\n`);
    const r = writePlugin({ files: ["a.pw"], out: "p", cwd: dir });
    expect(existsSync(join(dir, "p/skills/two"))).toBe(false);
    expect(r.skills.map((s) => s.name)).toEqual(["a:one"]);
    mkdirSync(join(dir, "busy"));
    writeFileSync(join(dir, "busy/notes.txt"), "mine");
    expect(() => writePlugin({ files: ["a.pw"], out: "busy", cwd: dir })).toThrow(/busy: not empty and not a plugin/);
    expect(read(dir, "busy/notes.txt")).toBe("mine");
  });
});

describe("patchwork plugin: errors", () => {
  const dir = folder({
    "broken.pw": `@skill a\nskill a() {\n    var = 3\n}\n`,
    "plain.pw": `fun main() { print(1) }\n`,
    "imports-missing.pw": `import {x} from "./nowhere.pw"\n@skill a\nskill a() {}\n`,
  });
  const fails = (files: string[]) => {
    try {
      writePlugin({ files, out: join(dir, "out"), cwd: dir });
    } catch (error) {
      expect(error).toBeInstanceOf(PluginError);
      return error as PluginError;
    }
    throw new Error("no error");
  };

  it("a syntax error is positioned; nothing is written", () => {
    const e = fails(["broken.pw"]);
    expect(e.message).toMatch(/^broken\.pw:3:9: error\[PW\d+\]: /);
    expect(e.usage).toBe(false);
    expect(existsSync(join(dir, "out"))).toBe(false);
  });

  it("a file with no skill or command says so", () => {
    expect(fails(["plain.pw"]).message).toBe("plain.pw: no @skill or @command to offer (`patchwork list FILE` shows what a file declares)");
  });

  it("a missing file, a missing import, a file that is not .pw: usage errors naming them", () => {
    expect(fails(["nope.pw"])).toMatchObject({ message: "nope.pw: no such file", usage: true });
    expect(fails(["imports-missing.pw"])).toMatchObject({ message: "imports-missing.pw imports nowhere.pw: no such file", usage: true });
    expect(fails(["x.json"])).toMatchObject({ message: "x.json: a plugin serves .pw files (Patchwork programs)", usage: true });
  });
});

describe("fileHeader", () => {
  it("reads the first paragraph and the fields; a shebang and a missing header give nothing", () => {
    expect(fileHeader("#!/usr/bin/env patchwork\n# A tool\n# @version 1.0.0\n\n# not header\n")).toEqual({ description: "A tool", version: "1.0.0", author: null });
    expect(fileHeader("fun main() {}\n# late comment\n")).toEqual({ description: null, version: null, author: null });
    expect(fileHeader("// Slashes too\n// Version: 3.0\n")).toEqual({ description: "Slashes too", version: "3.0", author: null });
  });
});
