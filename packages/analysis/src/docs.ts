/** One-line docs of the builtins (hover, completion) and the keywords (completion). */

export const BUILTIN_DOCS: Readonly<Record<string, string>> = {
  print: "print(values…): writes the values, separated by spaces, and a newline to the output.",
  log: "log(values…): writes the values, separated by spaces, and a newline to the log (stderr).",
  cat: "cat(value): the value as pretty-printed JSON text.",
  json: "json(text): parses JSON text into a value.",
  number: "number(text): the number written in the text (decimal or JSON syntax, surrounding whitespace allowed), e.g. number($(wc -l < f)); anything else is error PW3023.",
  len: "len(value): the length of a string (in characters), an array or an object (its keys).",
  keys: "keys(object): the object's keys, as an array of strings.",
  values: "values(object): the object's values, as an array.",
  typeof: 'typeof(value): the type name: "string", "number", "boolean", "null", "array", "object" or "function".',
  read: "read(path): the text of a file (relative to the program's working directory).",
  write: "write(path, text): writes text to a file (atomically), creating or replacing it.",
  exists: "exists(path): whether a file or directory exists.",
  env: "env(name): the environment variable's value, or null.",
};

export const KEYWORDS: readonly string[] = [
  "var", "if", "else", "for", "while", "in", "return", "break", "continue", "succeed", "throw",
  "try", "catch", "fun", "worker", "skill", "task", "trait", "type", "import", "export", "default",
  "from", "think", "ask", "do", "true", "false", "null", "self", "await",
];
