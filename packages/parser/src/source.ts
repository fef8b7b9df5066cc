import type { Position, Span } from "./ast.js";

/**
 * A source text with its line table: the one place that turns offsets into
 * 1-based lines and columns (Acorn's `getLineInfo`, done once per file).
 */
export class SourceFile {
  readonly fileName: string;
  readonly text: string;
  private readonly lineStarts: number[];
  /** The line (0-based) of the last lookup: spans are mostly asked for in source order. */
  private lastLine = 0;
  /** Each line's count of leading spaces and tabs, filled as asked (-1: not yet). */
  private blanks: Int32Array | null = null;

  constructor(text: string, fileName = "<input>") {
    this.text = text;
    this.fileName = fileName;
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 /* \n */) starts.push(i + 1);
      else if (c === 13 /* \r */ && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
    }
    this.lineStarts = starts;
  }

  /** Position of a 0-based offset (clamped to the text). */
  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    const starts = this.lineStarts;
    const last = this.lastLine;
    if (starts[last]! <= o) {
      const next = starts[last + 1];
      if (next === undefined || o < next) return { offset: o, line: last + 1, column: o - starts[last]! + 1 };
      const after = starts[last + 2];
      if (after === undefined || o < after) {
        this.lastLine = last + 1;
        return { offset: o, line: last + 2, column: o - next + 1 };
      }
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    this.lastLine = lo;
    return { offset: o, line: lo + 1, column: o - this.lineStarts[lo]! + 1 };
  }

  span(startOffset: number, endOffset: number): Span {
    return { start: this.positionAt(startOffset), end: this.positionAt(endOffset) };
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /**
   * The spaces and tabs that begin a 1-based line: worked out once per line, so that asking it
   * for every token of a long line costs no more than reading the line once.
   */
  leadingBlanks(line: number): number {
    const blanks = (this.blanks ??= new Int32Array(this.lineStarts.length).fill(-1));
    const cached = blanks[line - 1];
    if (cached === undefined) return 0;
    if (cached >= 0) return cached;
    const start = this.lineStarts[line - 1]!;
    let i = start;
    while (this.text.charCodeAt(i) === 32 || this.text.charCodeAt(i) === 9) i++;
    return (blanks[line - 1] = i - start);
  }

  /** The text of a 1-based line, without its line terminator; with `from`/`to`, only those columns (0-based, end excluded). */
  lineText(line: number, from = 0, to = Infinity): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return "";
    const end = start + this.lineLength(line);
    return this.text.slice(Math.min(end, start + from), Math.min(end, start + to));
  }

  /** The length of a 1-based line, without its line terminator. */
  lineLength(line: number): number {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return 0;
    const next = this.lineStarts[line];
    let end = next === undefined ? this.text.length : next;
    while (end > start && (this.text[end - 1] === "\n" || this.text[end - 1] === "\r")) end--;
    return end - start;
  }
}
