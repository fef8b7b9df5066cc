/**
 * Where a program may think, read from its text before it runs: the agent runtime uses it to
 * create sessions ahead of need (docs/agent.md, "Sessions made ahead"). Plain data walks of
 * the AST; a think inside a function called from a `do` block is not seen (the runtime's other
 * rules cover it).
 */
import type { Program } from "@patchwork/parser";

/**
 * The number of think blocks (and ask blocks, unless `asks` is false: `--ask-user` answers
 * them on the terminal) written anywhere inside `node`, itself included.
 */
export function countThinks(node: unknown, options: { asks?: boolean } = {}): number {
  const asks = options.asks ?? true;
  let count = 0;
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (record.kind === "Think" && (asks || record.mode !== "ask")) count++;
    for (const key in record) if (key !== "span") stack.push(record[key]);
  }
  return count;
}

/**
 * The think blocks of a Threadbare JSON program (`{"Think": …}` objects), from its text; 0 when
 * it is not JSON (its run reports that).
 */
export function countThreadbareThinks(text: string): number {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 0;
  }
  let count = 0;
  const stack: unknown[] = [raw];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) stack.push(...value);
    else {
      if (Object.hasOwn(value, "Think")) count++;
      stack.push(...Object.values(value));
    }
  }
  return count;
}

/** Whether any of these programs (a program and the modules it imports) contains a think or ask block. */
export function mayThink(programs: Iterable<Program>, options: { asks?: boolean } = {}): boolean {
  for (const program of programs) if (countThinks(program, options) > 0) return true;
  return false;
}
