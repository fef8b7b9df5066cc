import { startLanguageServer } from "@patchwork/language-server";

/**
 * `patchwork lsp [--stdio]`: the language server on stdin/stdout. Stdout carries only the
 * protocol: anything else a library would print goes to stderr.
 */
export async function lspCommand(): Promise<number> {
  console.log = console.error;
  console.info = console.error;
  const { done } = startLanguageServer({ input: process.stdin, output: process.stdout, log: (message) => process.stderr.write(`patchwork lsp: ${message}\n`) });
  await done;
  return 0;
}
