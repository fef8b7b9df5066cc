/**
 * The quick fix for a bare command (`echo hi` written as code): insert `$ ` at the start of
 * the statement. It applies to any diagnostic whose message suggests a `$ ` line (the parser's
 * bare-command error says so), so it does not depend on one code number.
 */

/** Whether a diagnostic's message proposes writing the line as a `$ ` shell line. */
export function suggestsShellLine(message: string): boolean {
  return /`\$ [^`]*`|'\$ [^']*'|"\$ [^"]*"/.test(message) || /\bbare command\b/i.test(message);
}

export interface Fix {
  title: string;
  start: number;
  end: number;
  newText: string;
}

/** `echo hi` → `$ echo hi` for the line holding `offset`; null when the line is empty or already a shell line. */
export function bareCommandFix(text: string, offset: number): Fix | null {
  const lineStart = text.lastIndexOf("\n", Math.max(0, offset - 1)) + 1;
  let i = lineStart;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  if (i >= text.length || text[i] === "\n" || text[i] === "\r" || text[i] === "$") return null;
  return { title: "Run it as a shell command ($ …)", start: i, end: i, newText: "$ " };
}
