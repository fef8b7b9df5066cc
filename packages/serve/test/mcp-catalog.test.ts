// The catalog of `patchwork mcp` on plain files, in process: which entries become tools, their
// names (clash prefixes), descriptions and JSON Schemas, and files left out with their errors.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalog, pwFiles } from "../src/index.js";
import { folderWith } from "./mcp-helpers.js";

describe("the tools of .pw files", () => {
  it("skills and commands only, named, described, with schemas from the declared types", () => {
    const dir = folderWith({
      "shapes.pw": [
        "type Point = {x: number, y: number, label: string | null}",
        "type Shade = \"light\" | \"dark\"",
        "type Tree = {name: string, kids: [Tree]}",
        "export default trait ShapeKit: Agent {",
        "  # Moves a point.",
        "  @skill move",
        "  fun move(p: Point, by: [number], shade: Shade, any_thing: any, mixed: number | string, flag: boolean): Point { return p }",
        "  @command tree",
        "  fun tree(t: Tree): [string] { return [] }",
        "  fun not_a_tool() { return 1 }",
        "}",
        "fun also_not() { return 2 }",
      ].join("\n"),
    });
    const { tools, problems } = buildCatalog(["shapes.pw"], dir);
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(["move", "tree"]);
    const move = tools[0]!;
    expect(move.description).toBe("Moves a point.");
    expect(move.inputSchema).toEqual({
      type: "object",
      properties: {
        p: {
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" }, label: { anyOf: [{ type: "string" }, { type: "null" }] } },
          required: ["x", "y"],
        },
        by: { type: "array", items: { type: "number" } },
        shade: { type: "string", enum: ["light", "dark"] },
        any_thing: {},
        mixed: { anyOf: [{ type: "number" }, { type: "string" }] },
        flag: { type: "boolean" },
      },
      required: ["p", "by", "shade", "mixed", "flag"],
    });
    // An object return type is the structured content as it is.
    expect(move.output).toEqual({ schema: (move.inputSchema.properties as Record<string, unknown>).p, wrapped: false });
    // A recursive type is cut off (as `any`) instead of looping.
    const tree = tools[1]!;
    expect(tree.description).toBe("command tree(t: Tree) of shape-kit");
    expect(JSON.stringify(tree.inputSchema)).toContain('"kids":{"type":"array","items":{"type":"object"');
    expect(tree.output).toEqual({ schema: { type: "object", properties: { value: { type: "array", items: { type: "string" } } }, required: ["value"] }, wrapped: true });
  });

  it("a folder's .pw files in order; a clash prefixes every clashing tool with its plugin name", () => {
    const skill = (trait: string, name: string) => `export default trait ${trait}: Agent {\n  @skill ${name}\n  fun ${name}() { return 1 }\n}\n`;
    const dir = folderWith({ "b.pw": skill("Beta", "run"), "a.pw": skill("AlphaOne", "run"), "c.pw": skill("Gamma", "only"), "x.txt": "" });
    expect(pwFiles([dir], dir).map((f) => f.slice(dir.length + 1))).toEqual(["a.pw", "b.pw", "c.pw"]);
    expect(buildCatalog([dir], dir).tools.map((t) => t.name)).toEqual(["alpha-one_run", "beta_run", "only"]);
  });

  it("a file that does not parse is left out, with its positioned errors", () => {
    const dir = folderWith({ "ok.pw": "export default trait Ok: Agent {\n  @skill fine\n  fun fine() { return 1 }\n}\n" });
    writeFileSync(join(dir, "bad.pw"), "export default trait Bad: Agent {\n  @skill oops\n  fun oops( { }\n}\n");
    const { tools, problems } = buildCatalog([dir], dir);
    expect(tools.map((t) => t.name)).toEqual(["fine"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/bad\.pw:3:\d+: error\[PW2\d{3}\]/);
  });

  it("a path that does not exist is an error", () => {
    const dir = folderWith({});
    expect(() => pwFiles(["nope.pw"], dir)).toThrow(/ENOENT|no such file/);
  });
});
