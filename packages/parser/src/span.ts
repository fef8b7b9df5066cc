/**
 * Where a node of the AST is (ast.ts): a position and a range of the source, and the span
 * every node carries.
 */

/** A point in the source. `line` and `column` are 1-based; `offset` is a 0-based UTF-16 index. */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

/** A source range; `end` is exclusive. */
export interface Span {
  start: Position;
  end: Position;
}

export interface NodeBase {
  span: Span;
}
