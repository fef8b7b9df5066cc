/**
 * Offsets of every value in a JSON text, by JSON path (`$`, `$.a`, `$.a[0]`), so that
 * Threadbare nodes and their diagnostics can point at their JSON source. The text must
 * already be valid JSON (JSON.parse accepted it).
 */
export function jsonSpans(text: string): Map<string, [number, number]> {
  const spans = new Map<string, [number, number]>();
  let i = 0;
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const start = i;
    const c = text.charAt(i);
    if (c === "{") {
      i++;
      ws();
      while (text.charAt(i) !== "}") {
        const key = str();
        ws();
        i++; // :
        value(`${path}.${key}`);
        ws();
        if (text.charAt(i) === ",") i++;
        ws();
      }
      i++;
    } else if (c === "[") {
      i++;
      ws();
      for (let n = 0; text.charAt(i) !== "]"; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text.charAt(i) === ",") i++;
        ws();
      }
      i++;
    } else if (c === '"') str();
    else while (i < text.length && !",}] \t\n\r".includes(text.charAt(i))) i++;
    spans.set(path, [start, i]);
  };
  value("$");
  return spans;
}
