/**
 * What a task thread gets of its file's AST: the file without the top-level functions its task
 * can never call. Each task thread holds its own copy of the AST (a structured clone), and an
 * AST is large — every node carries its span: a 318 KB program of 3,000 functions is a 22 MB
 * AST per copy, which made each of 50 waiting workers cost ≈ 50 MB (issue 21 §6,
 * docs/benchmarks.md). A worker usually calls a few of its file's functions.
 *
 * Conservative by construction: every item that is not a top-level function (traits, types,
 * imports, top-level statements) is kept, and a function is kept when any kept node mentions
 * its name anywhere (a `name` field of any node: calls, references, patterns, types), starting
 * from the task's entry. Over-keeping costs memory; dropping a function that could be called is
 * impossible, since a function is only reachable by its name.
 */
import type { FunDecl, Program, TopLevel } from "@patchwork/parser";

export function taskProgram(program: Program, entry: string): Program {
  const functions = new Map<string, FunDecl[]>();
  const kept = new Set<TopLevel>();
  const queue: unknown[] = [];
  for (const item of program.body) {
    if (item.kind === "FunDecl") {
      const same = functions.get(item.name);
      if (same) same.push(item);
      else functions.set(item.name, [item]);
    } else {
      kept.add(item);
      queue.push(item);
    }
  }
  if (functions.size === 0) return program;
  const want = (name: string) => {
    const found = functions.get(name);
    if (!found) return;
    functions.delete(name);
    for (const f of found) {
      kept.add(f);
      queue.push(f);
    }
  };
  want(entry.split(".")[0]!);
  while (queue.length > 0 && functions.size > 0) {
    const node = queue.pop();
    if (Array.isArray(node)) {
      for (const x of node) if (x !== null && typeof x === "object") queue.push(x);
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    const record = node as Record<string, unknown>;
    if (typeof record.name === "string") want(record.name);
    for (const key in record) {
      if (key === "span") continue;
      const value = record[key];
      if (value !== null && typeof value === "object") queue.push(value);
    }
  }
  if (kept.size === program.body.length) return program;
  return { ...program, body: program.body.filter((item) => kept.has(item)) };
}
