/** The AST as pretty JSON (what `patchwork parse` prints); spans included. */
import type { Node } from "./ast.js";

export function astToJson(node: Node): string {
  return JSON.stringify(node, null, 2);
}
