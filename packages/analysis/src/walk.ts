/** A depth-first walk over AST nodes (spans skipped), shared by the editor queries and the checks. */
import type { Node } from "@patchwork/parser";

/** Generic walk over AST nodes (every object with a `kind`). */
export function walk(root: unknown, visit: (n: Node) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v !== null && typeof v === "object" && "kind" in v) {
      visit(v as Node);
      for (const [k, c] of Object.entries(v)) if (k !== "span" && c !== null && typeof c === "object") stack.push(c);
    }
  }
}
