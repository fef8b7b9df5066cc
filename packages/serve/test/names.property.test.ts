import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse } from "@patchwork/parser";
import { kebabCase, pluginName, TOOL_NAME, toolNames } from "../dist/index.js";

const runs = Number(process.env.PW_FUZZ_RUNS ?? 200);

describe("plugin and tool names", () => {
  it("kebab-cases trait names as the reference's compiler did", () => {
    expect(kebabCase("Greeter")).toBe("greeter");
    expect(kebabCase("InterpolationTest")).toBe("interpolation-test");
    expect(kebabCase("HTTPServer")).toBe("http-server");
    expect(kebabCase("my_file")).toBe("my-file");
    expect(kebabCase("!!!")).toBe("patchwork");
  });

  it("a file's plugin name: its default trait, else its first trait, else its base name", () => {
    const p = (src: string) => parse(src).program!;
    expect(pluginName(p("trait A: Agent { fun a() {} }\nexport default trait InterpolationTest: Agent { fun b() {} }\n"), "x.pw")).toBe("interpolation-test");
    expect(pluginName(p("trait Greeter: Agent { fun a() {} }\n"), "x.pw")).toBe("greeter");
    expect(pluginName(p("fun main() {}\n"), "/a/My Tools.pw")).toBe("my-tools");
  });

  it("tool names are unique, valid for every client, and plain unless two files clash", () => {
    const skill = fc.record({ plugin: fc.string({ maxLength: 80 }).map(kebabCase), entry: fc.string({ minLength: 1, maxLength: 90 }) });
    fc.assert(
      fc.property(fc.array(skill, { maxLength: 12 }), (skills) => {
        const names = toolNames(skills);
        expect(names).toHaveLength(skills.length);
        expect(new Set(names).size).toBe(names.length);
        for (const n of names) expect(n).toMatch(TOOL_NAME);
        skills.forEach((s, i) => {
          const shared = skills.filter((t) => t.entry === s.entry).length > 1;
          if (!shared && /^[a-zA-Z0-9_-]{1,64}$/.test(s.entry) && skills.every((t) => t === s || !`${t.plugin}_${t.entry}`.startsWith(s.entry))) expect(names[i]).toBe(s.entry);
        });
      }),
      { numRuns: runs },
    );
    expect(toolNames([{ plugin: "greeter", entry: "greet" }, { plugin: "hello", entry: "greet" }, { plugin: "x", entry: "run" }])).toEqual(["greeter_greet", "hello_greet", "run"]);
  });
});
