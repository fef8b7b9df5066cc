// "N skipped" in the summary of npm test says which and why (issue 23): the reporter lists the
// skipped tests by name, and every conditional test names its reason in its title.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it, vi } from "vitest";
import SkippedReporter from "./setup/skipped-reporter.js";

const root = join(import.meta.dirname, "..");

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === "node_modules") return [];
    return statSync(p).isDirectory() ? testFiles(p) : name.endsWith(".test.ts") ? [p] : [];
  });
}

describe("skipped tests say why", () => {
  it("every test that runs only on some machines names its reason in its title", () => {
    const files = [...testFiles(join(root, "packages")), ...testFiles(join(root, "test"))];
    const silent = files.filter((f) => {
      const text = readFileSync(f, "utf8");
      return /\.(runIf|skipIf)\(/.test(text) && !text.includes("(skipped: ");
    });
    expect(silent.map((f) => relative(root, f))).toEqual([]);
  });

  it("the reporter lists the skipped tests after the summary, by file and title", () => {
    const test = (fullName: string, state: string) => ({ fullName, result: () => ({ state }) });
    const module = {
      moduleId: join(process.cwd(), "packages/x/test/a.test.ts"),
      children: { allTests: () => [test("runs", "passed"), test("needs a thing (skipped: it is missing)", "skipped")] },
    };
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      new SkippedReporter().onTestRunEnd([module as never]);
      expect(write.mock.calls.map((c) => String(c[0])).join("")).toBe(
        "\nSkipped (1), each for the reason in its title:\n  packages/x/test/a.test.ts > needs a thing (skipped: it is missing)\n",
      );
      write.mockClear();
      new SkippedReporter().onTestRunEnd([{ ...module, children: { allTests: () => [test("runs", "passed")] } } as never]);
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
  });
});
