/**
 * Names from Python and JavaScript that Patchwork spells another way (issue 35). An undefined
 * variable with one of these names gets the Patchwork form in its message, at run time
 * (PW3002) and in `patchwork check` and the language server (PW5001). Plain data: exported from
 * `@patchwork/parser/core`, so the interpreter's core loads no parser for it.
 */
const FOREIGN: Readonly<Record<string, string>> = {
  None: "Patchwork writes `null`",
  nil: "Patchwork writes `null`",
  undefined: "Patchwork writes `null` (a missing key or variable is null)",
  True: "Patchwork writes `true`",
  False: "Patchwork writes `false`",
  range: "a range is `a...b`, both ends included: `for i in 1...4` (Python's `range(1, 5)`)",
  console: "write `print(…)` (stdout) or `log(…)` (stderr) instead of `console.log(…)`",
  Object: "`keys(o)` and `values(o)` are builtins: `keys(o)` for `Object.keys(o)`",
  int: "write `number(x)` to read a number from text",
  float: "write `number(x)` to read a number from text",
  parseInt: "write `number(x)` to read a number from text",
  parseFloat: "write `number(x)` to read a number from text",
  Number: "write `number(x)` to read a number from text",
  str: 'write `"${x}"` to make text of a value (or `json(x)`)',
  String: 'write `"${x}"` to make text of a value (or `json(x)`)',
  JSON: "`json(text)` parses JSON text and `json(value)` writes it",
  Math: "Patchwork has no Math object: arithmetic is `+ - * / %`",
  this: "a trait's methods reach their object as `self`",
};

/** What Patchwork writes instead of the Python or JavaScript name `name`; undefined for any other name. */
export function foreignName(name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(FOREIGN, name) ? FOREIGN[name] : undefined;
}
