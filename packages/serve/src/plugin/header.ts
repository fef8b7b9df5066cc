/**
 * A file's header comment: the comment lines at the very top of a `.pw` file (before the
 * first line that is not a comment). Its first paragraph describes the plugin; lines
 * `version: X`, `author: NAME` (also `@version`, `@author`) anywhere in it set those fields.
 *
 *     # Multi-Worker Delegation Test
 *     # Tests fork-join delegation with multiple workers and result collection
 *     # version: 1.2.0
 */
export interface FileHeader {
  /** The header's first paragraph, its lines joined by spaces; null without a header. */
  description: string | null;
  version: string | null;
  author: string | null;
}

const COMMENT = /^\s*(?:#|\/\/)\s?(.*)$/;
/** `version: X`, `@version X`, `@version: X` (and the same for author). */
const FIELD = /^(?:@(version|author):?\s+|(version|author):\s*)(\S.*)$/i;

/** The header comment of a file's text. */
export function fileHeader(text: string): FileHeader {
  const header: FileHeader = { description: null, version: null, author: null };
  const paragraphs: string[][] = [[]];
  const lines = text.split(/\r?\n/);
  if (lines[0]?.startsWith("#!")) lines.shift(); // a shebang line is no description
  for (const line of lines) {
    const m = COMMENT.exec(line);
    if (!m) break;
    const body = m[1]!.trim();
    const field = FIELD.exec(body);
    if (field) {
      header[(field[1] ?? field[2])!.toLowerCase() as "version" | "author"] = field[3]!;
      continue;
    }
    if (body === "") paragraphs.push([]);
    else paragraphs.at(-1)!.push(body);
  }
  const first = paragraphs.find((p) => p.length > 0);
  if (first) header.description = first.join(" ");
  return header;
}
