// A task thread gets its file's AST without the functions its task can never call
// (task-program.ts, issue 21 §6): what is kept, and a threaded run whose workers reach their
// helpers in every way a name can be used still gives the in-thread run's output.
import { describe, expect, it } from "vitest";
import { createNodeHost, run as runInThread } from "@patchwork/interpreter";
import { parse, type Program } from "@patchwork/parser";
import { runWithAgent } from "../dist/index.js";
import { taskProgram } from "../src/thread/task-program.js";

const names = (p: Program) => p.body.map((item) => ("name" in item && typeof item.name === "string" ? item.name : item.kind));

describe("taskProgram", () => {
  const { program } = parse(
    `
fun unused() { return 0 }
fun a(x) { return b(x) + 1 }
fun b(x) { return x * 2 }
fun viaPrompt() { return "p" }
fun viaString() { return "s" }
fun viaStatement() { return 3 }
fun viaType() { return 4 }
fun viaTrait() { return 5 }
fun twin(x) { return x }
type Shape = { n: number }
trait T { @skill fun m() { return viaTrait() } }
worker w(n) {
    var s = "\${viaString()}"
    var t = think { answer \${viaPrompt()} }
    return a(n) + twin(n)
}
fun twin(x, y) { return y }
print(viaStatement())
`,
    { fileName: "p.pw" },
  );

  it("keeps every item but the functions no kept node names", () => {
    expect(names(taskProgram(program, "w"))).toEqual([
      "a", "b", "viaPrompt", "viaString", "viaStatement", "viaTrait", "twin", "Shape", "T", "w", "twin", "ExprStmt",
    ]);
  });

  it("gives the program itself when nothing can be dropped", () => {
    const small = parse("fun f() { return 1 }\nworker w() { return f() }\n", { fileName: "q.pw" }).program;
    expect(taskProgram(small, "w")).toBe(small);
  });
});

describe("workers on trimmed ASTs", () => {
  it("give the same output as the in-thread run", async () => {
    const filler = Array.from({ length: 200 }, (_, i) => `fun f${i}(x) { return x + ${i} }`).join("\n");
    const source = `${filler}
fun helper(x) { return f7(x) * 2 }
fun label(x) { return "item \${x}" }
worker w(n) {
    var prompt = think { describe \${label(n)} }
    return [helper(n), f3(n), prompt]
}
var r = self.delegate([w(1), w(2)]).await
print(r)
`;
    const threaded = await runWithAgent({ source, fileName: "/tmp/trim.pw", cwd: "/tmp", agent: null, writeOutput: false });
    const inThread = runInThread(source, { fileName: "/tmp/trim.pw", cwd: "/tmp", host: createNodeHost({ cwd: "/tmp", stdout: () => {}, stderr: () => {} }) });
    expect(threaded.diagnostics).toEqual([]);
    expect(threaded.output).toBe(inThread.output);
    expect(threaded.output).toContain("16");
    expect(threaded.output).toContain("describe item 2");
  }, 60_000);
});
