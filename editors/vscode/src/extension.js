// The Patchwork extension: the language client. Everything a user sees beyond highlighting
// (diagnostics, hover, definition, completion, formatting…) comes from `patchwork lsp`.
import * as vscode from "vscode";
import { LanguageClient, TransportKind } from "vscode-languageclient/node";

/** @type {LanguageClient | undefined} */
let client;

/** @param {vscode.ExtensionContext} context */
export async function activate(context) {
  const config = vscode.workspace.getConfiguration("patchwork");
  const command = config.get("server.command", "patchwork");
  const args = config.get("server.args", ["lsp"]);
  const output = vscode.window.createOutputChannel("Patchwork");
  client = new LanguageClient(
    "patchwork",
    "Patchwork",
    { run: { command, args, transport: TransportKind.stdio }, debug: { command, args, transport: TransportKind.stdio } },
    { documentSelector: [{ language: "patchwork" }], outputChannel: output },
  );
  context.subscriptions.push(output);
  await client.start();
}

export async function deactivate() {
  await client?.stop();
}
