// Workers in the library's run() (the in-thread Workers), entries and argument conversion.
import { existsSync, rmSync } from "node:fs";
import { parse } from "@patchwork/parser";
import { describe, expect, it } from "vitest";
import { convertArgs, findEntry, listEntries, run, ulid } from "../src/index.js";

const GREETER = `worker greeter_worker(name: string) {
    think {
        Please greet the user named \${name}.
    }
}

export default trait Greeter: Agent {
    # Greets a user with a personalized message
    # (second line)
    @skill greet
    fun greet(name: string) {
        return self.delegate([greeter_worker(name)]).await
    }

    fun helper(n: number, flags: {on: boolean}, tags: [string]) { return [n, flags.on, tags] }
}
`;

function entriesOf(source: string) {
  return listEntries(parse(source, { fileName: "g.pw" }).program, source);
}

describe("entries", () => {
  it("lists skills first with their signatures and doc comments, then items and trait methods", () => {
    const list = entriesOf(GREETER);
    expect(list.map((e) => [e.kind, e.name, e.target, e.signature])).toEqual([
      ["skill", "greet", "Greeter.greet", "greet(name: string)"],
      ["worker", "greeter_worker", "greeter_worker", "greeter_worker(name: string)"],
      ["fun", "Greeter.helper", "Greeter.helper", "Greeter.helper(n: number, flags: {on: boolean}, tags: [string])"],
    ]);
    expect(list[0]!.doc).toBe("Greets a user with a personalized message\n(second line)");
    expect(list[1]!.doc).toBeNull();
  });

  it("finds an entry by item name, Trait.method, skill name or unique method name", () => {
    const list = entriesOf(GREETER);
    expect(findEntry(list, "greet")?.target).toBe("Greeter.greet");
    expect(findEntry(list, "Greeter.helper")?.target).toBe("Greeter.helper");
    expect(findEntry(list, "helper")?.target).toBe("Greeter.helper");
    expect(findEntry(list, "greeter_worker")?.kind).toBe("worker");
    expect(findEntry(list, "nope")).toBeNull();
  });

  it("converts arguments to the declared types and names the parameter when one does not fit", () => {
    const helper = findEntry(entriesOf(GREETER), "helper")!;
    const none = () => undefined;
    expect(convertArgs(helper, { positional: ["42", '{"on": true}', '["a","b"]'] }, none)).toEqual([42, { on: true }, ["a", "b"]]);
    expect(convertArgs(helper, { positional: ["1.5"], named: { tags: "[]", flags: "{}" } }, none)).toEqual([1.5, {}, []]);
    expect(() => convertArgs(helper, { positional: ["x", "{}", "[]"] }, none)).toThrow(`argument 'n' (number): expected number, got "x"`);
    expect(() => convertArgs(helper, { positional: ["1", "not json", "[]"] }, none)).toThrow(/argument 'flags'.*expected JSON/);
    expect(() => convertArgs(helper, { positional: ["1"] }, none)).toThrow(
      "missing argument(s) 'flags', 'tags': Greeter.helper(n: number, flags: {on: boolean}, tags: [string])",
    );
    expect(() => convertArgs(helper, { named: { nope: "1" } }, none)).toThrow(/has no parameter 'nope'/);
    expect(() => convertArgs(helper, { positional: ["1", "{}", "[]", "extra"] }, none)).toThrow(/takes 3 argument\(s\), got 4/);
  });

  it("runs a skill with arguments given as text; the one skill is the default entry", () => {
    const byName = run(GREETER, { fileName: "g.pw", entry: "greet", argStrings: { positional: ["Alice"] } });
    expect(byName.diagnostics).toEqual([]);
    expect(byName.value).toEqual([{ __think_prompt: "Please greet the user named Alice." }]);
    const byDefault = run(GREETER, { fileName: "g.pw", argStrings: { named: { name: "Bob" } } });
    expect(byDefault.value).toEqual([{ __think_prompt: "Please greet the user named Bob." }]);
    // A command line's first word may be the default entry's argument.
    const loose = run(GREETER, { fileName: "g.pw", entry: "Carol", entryMayBeArgument: true, argStrings: { positional: [] } });
    expect(loose.value).toEqual([{ __think_prompt: "Please greet the user named Carol." }]);
    const strict = run(GREETER, { fileName: "g.pw", entry: "Carol" });
    expect(strict.diagnostics.map((d) => d.code)).toEqual(["PW3051"]);
  });

  it("reports a missing argument with the entry's signature, positioned at its declaration", () => {
    const r = run(GREETER, { fileName: "g.pw", entry: "greet", argStrings: { positional: [] } });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3065", message: "missing argument(s) 'name': greet(name: string)" });
    expect(r.diagnostics[0]!.span.start.line).toBe(10);
  });

  it("asks to name one of several skills", () => {
    const src = "trait T {\n  @skill a\n  fun a() { return 1 }\n  @skill b\n  fun b() { return 2 }\n}\n";
    const r = run(src, { fileName: "t.pw" });
    expect(r.diagnostics[0]!.message).toContain("several entries (@skill a, @skill b): name one after the file");
    // A command is named as one, not among "skills" (issue 35).
    const mixed = run("@command hello\nfun hello() { return 1 }\n@skill greet\nfun greet() { return 2 }\n", { fileName: "m.pw" });
    expect(mixed.diagnostics[0]!.message).toContain("several entries (@command hello, @skill greet)");
    expect(run(src, { fileName: "t.pw", entry: "b" }).value).toBe(2);
    expect(run(src, { fileName: "t.pw", entry: "T.a" }).value).toBe(1);
  });
});

describe("the session", () => {
  it("has a ULID id and a directory created on first use, removed at the end of the run", () => {
    const r = run(`var d = self.session.dir\nwrite(d + "/f.txt", "x")\n[self.session.id, d, exists(d + "/f.txt")]`, { fileName: "s.pw" });
    expect(r.diagnostics).toEqual([]);
    const [id, dir, existed] = r.value as [string, string, boolean];
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(dir).toContain(id);
    expect(existed).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it("keeps the directory with keepSession", () => {
    const r = run(`self.session.dir`, { fileName: "s.pw", keepSession: true });
    expect(existsSync(r.value as string)).toBe(true);
    rmSync(r.value as string, { recursive: true, force: true });
  });

  it("ULIDs sort by time and differ", () => {
    const a = ulid(1_000_000);
    const b = ulid(2_000_000);
    expect(a < b).toBe(true);
    expect(ulid(5)).not.toBe(ulid(5));
  });

  it("is the same for every worker of the run", () => {
    const r = run(`worker w() { return self.session.id }\nvar ids = self.delegate([w(), w()]).await\n[ids[0] == self.session.id, ids[1] == self.session.id]`);
    expect(r.value).toEqual([true, true]);
  });
});

describe("workers in one thread", () => {
  it("run a receiver queued before its sender (a receive runs queued tasks)", () => {
    const src = `
worker rx() { return self.session.mailbox.m.receive(1000) }
worker tx() { self.session.mailbox.m.send([1, {a: 2}]) }
self.delegate([rx(), tx()]).await`;
    expect(run(src).value).toEqual([[1, { a: 2 }], null]);
  });

  it("cancel the rest of a group after its first failure (they never start)", () => {
    const src = `
worker bad() { throw "first" }
worker later() { print("later ran") }
var r = null
try { self.delegate([bad(), later()]).await } catch e { r = e }
r`;
    const out = run(src);
    expect(out.value).toBe("first");
    expect(out.output).toBe("");
  });

  it("report an uncaught worker failure at its source, naming the worker", () => {
    const r = run(`worker w() {\n  var x = nope\n}\nself.delegate([w()]).await\n`, { fileName: "f.pw" });
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3002", message: "worker 'w' failed: undefined variable 'nope'" });
    expect(r.diagnostics[0]!.span.start).toMatchObject({ line: 2, column: 11 });
  });

  it("reject what is not a task", () => {
    const r = run(`self.delegate([1])`);
    expect(r.diagnostics[0]!.message).toContain("element 0 is number, not a worker task");
    const twice = run(`worker w() { return 1 }\nvar t = w()\nself.delegate([t]).await\nself.delegate([t])`);
    expect(twice.diagnostics[0]!.message).toContain("was already started");
  });
});
