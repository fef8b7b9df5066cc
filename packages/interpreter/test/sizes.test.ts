// Values past the size limits are positioned, catchable PW3073 errors, never an engine abort;
// ranges only iterated are never built; long builtin work counts against the step budget.
import { describe, expect, it } from "vitest";
import type { RunOptions } from "../src/index.js";
import { runSource as runWith } from "./helpers.js";

for (const codegen of [true, false]) {
  const runSource = (src: string, options: RunOptions = {}) => runWith(src, { ...options, codegen });
  describe(`size limits (${codegen ? "codegen" : "closures only"})`, () => {
    it("an index far past the end is PW3073 naming the index and the limit", () => {
      const r = runSource("var x = []\nx[1000000000] = 1");
      expect(r.error).toBe("PW3073 at 2:1: value too large: index 1000000000 is past the limit of 16777216 array elements");
    });

    it("that error is catchable, and a gap within the limit fills with null", () => {
      const r = runSource('var x = [1]\ntry { x[1e12] = 2 } catch e { print(e.line, e.column) }\nx[3] = 4\nprint(cat(x))');
      expect(r.error).toBeNull();
      expect(r.output).toBe("2 7\n" + JSON.stringify([1, null, null, 4], null, 2) + "\n");
    });

    it("a range that is only iterated is never built", () => {
      const started = Date.now();
      const r = runSource("var n = 0\nfor i in 0...1000000000 {\n  if i > 3 { break }\n  n++\n}\nprint(n)");
      expect(r.output).toBe("4\n");
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it("a materialised range past the limit is PW3073 at the range", () => {
      const r = runSource("var r = 0...1000000000\nprint(len(r))");
      expect(r.error).toBe(
        "PW3073 at 1:9: value too large: the range 0...1000000000 would have 1000000001 elements (the limit is 16777216)",
      );
      expect(runSource("var r = 0...1e309").error).toMatch(/^PW3073 at 1:9: .*Infinity elements/);
      expect(runSource("var r = 1e309...1e309").error).toMatch(/^PW3073 at 1:9: .*Infinity elements/);
    });

    it("a materialised range counts like the loop", () => {
      const r = runSource("print(0.5...3)\nprint(len(3...1))\nvar n = []\nfor i in 0.5...3 { n.push(i) }\nprint(n == 0.5...3)");
      expect(r.output).toBe("0.5, 1.5, 2.5\n0\ntrue\n");
    });

    it("push, + and split stop at the array limit", () => {
      const opts = { limits: { maxArrayLength: 1000 } };
      expect(runSource("var a = []\nwhile true { a.push(1) }", opts).error).toBe(
        "PW3073 at 2:14: value too large: the array would have 1001 elements (the limit is 1000)",
      );
      expect(runSource("var a = [1]\nwhile true { a = a + a }", opts).error).toMatch(/^PW3073 at 2:18: .*'\+' would have 1024 elements/);
      expect(runSource('var s = "ab".repeat(600)\nprint(len(s.split("")))', opts).error).toMatch(/^PW3073 at 2:11: .*split\(\) would have 1200/);
      expect(runSource('var s = "a,".repeat(1200)\nprint(len(s.split(",")))', opts).error).toMatch(/split\(\) would have 1201/);
      expect(runSource('var s = "a\\n".repeat(1200)\nfor l in s { }', opts).error).toMatch(/^PW3073 at 2:10: .*lines of the string would have 1200 /);
      expect(runSource('var s = "a\\n".repeat(1200)\nprint(len(s.lines()))', opts).error).toMatch(/lines\(\) would have 1200/);
      expect(runSource('var o = {}\nfor i in 1...2000 { o["k${i}"] = i }', opts).error).toMatch(/^PW3073 at 2:21: .*object would have 1001 entries/);
    });

    it("strings stop at the string limit: +, interpolation, repeat, pad, join, replace", () => {
      const opts = { limits: { maxStringLength: 1000 } };
      expect(runSource('var s = "x"\nwhile true { s = s + s }', opts).error).toMatch(/^PW3073 at 2:18: .*'\+' would be 1024 characters long \(the limit is 1000\)/);
      expect(runSource('var s = "x".repeat(600)\nvar t = "${s}${s}"', opts).error).toMatch(/^PW3073 at 2:9: value too large: the string would be 1200/);
      expect(runSource('print("x".repeat(1e9))').error).toBe(
        "PW3073 at 1:7: value too large: the result of repeat() would be 1000000000 characters long (the limit is 536870888)",
      );
      expect(runSource('print("x".padStart(1e12))').error).toMatch(/^PW3073 at 1:7: .*padStart\(\) would be 1000000000000/);
      expect(runSource('print("x".padEnd(1e309, "ab"))').error).toMatch(/^PW3073 at 1:7: .*padEnd\(\) would be Infinity/);
      expect(runSource('var a = ["x".repeat(600), "y".repeat(600)]\nprint(a.join())', opts).error).toMatch(/^PW3073 at 2:7: .*join\(\) would be 1201/);
      expect(runSource('print("a".repeat(600).replaceAll("a", "bb"))', opts).error).toMatch(/replaceAll\(\) would be 1200/);
      expect(runSource('print("a".repeat(1000).replace("a", "bb"))', opts).error).toMatch(/replace\(\) would be 1001/);
    });

    it("the engine's own string limit is positioned PW3073 too", () => {
      const r = runSource('var s = "x"\ntry {\n  while true { s = s + s }\n} catch e { print(e.message, e.line) }');
      expect(r.output).toBe(
        "value too large: the result of '+' would be 536870912 characters long (the limit is 536870888) 3\n",
      );
    });

    it("repeat, padStart and padEnd", () => {
      const r = runSource('print("ab".repeat(3), "ab".repeat(0), "7".padStart(3, "0"), "é".padEnd(4, "xy"), "abc".padStart(2), "x".padStart(3))');
      expect(r.output).toBe("ababab  007 éxyx abc   x\n");
      expect(runSource('"x".repeat(-1)').error).toMatch(/^PW3008 at 1:1: repeat\(\): the count must be a non-negative number/);
      expect(runSource('"x".repeat("2")').error).toMatch(/^PW3008 .*the count must be a number, got string/);
    });

    it("sort orders numbers numerically and strings by code point, in place", () => {
      const r = runSource('var a = [10, 9, 1]\nvar b = a.sort()\nprint(a, b == a)\nprint(["b", "😀", "\uffff", "a"].sort())');
      expect(r.output).toBe("1, 9, 10 true\na, b, \uffff, 😀\n");
      expect(runSource('[1, "a"].sort()').error).toMatch(/^PW3008 at 1:1: sort\(\): can only sort/);
    });

    it("JSON past the array limit is PW3073; nested past the nesting limit is PW3022", () => {
      const opts = { limits: { maxArrayLength: 100 } };
      expect(runSource('json("[" + "0,".repeat(200) + "0]")', opts).error).toMatch(/^PW3073 at 1:1: .*more than 100 elements/);
      expect(runSource('json("[".repeat(5000))').error).toMatch(/^PW3022 at 1:1: .*nested more than 1000 levels/);
    });

    it("a value containing itself, or nested too deeply, is PW3073 where it is walked", () => {
      expect(runSource("var a = [1]\na.push(a)\nprint(a)").error).toMatch(/^PW3073 at 3:1: .*contains itself/);
      expect(runSource('var a = [1]\na.push(a)\nvar s = "${a}"').error).toMatch(/^PW3073 at 3:9: /);
      expect(runSource("var a = [1]\na.push(a)\nvar b = [1]\nb.push(b)\nprint(a == b)").error).toMatch(/^PW3073 at 5:7: /);
      expect(runSource("var a = [1]\na.push(a)\na").error).toMatch(/^PW3073 at 1:1: /);
      const caught = runSource('var o = {}\no.me = o\ntry { print(o) } catch e { print("caught", e.line) }');
      expect(caught.output).toBe("caught 3\n");
    });

    it("long builtin work counts against the step budget", () => {
      // 2000 loop steps, then a sort of 2000 numbers: ~20000 comparisons, one step per 1024.
      const src = "var a = []\nfor i in 1...2000 { a.push((i * 7919) % 2003) }\nvar n = 0\na.sort()\nprint(a[0])";
      expect(runSource(src, { limits: { maxSteps: 2010 } }).error).toMatch(/^PW3071 at 4:1: /);
      expect(runSource(src, { limits: { maxSteps: 3000 } }).output).toBe("1\n");
      expect(runSource("var r = 0...100000", { limits: { maxSteps: 50 } }).error).toMatch(/^PW3071 at 1:9: /);
    });
  });
}
