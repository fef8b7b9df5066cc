// Helpers of the `patchwork mcp` tests: the SDK's own client over real stdio to the CLI, skills
// in temp folders, and the processes a server started (found through /proc).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { livingProcesses } from "./helpers.js";

export const patchworkBin = fileURLToPath(new URL("../../cli/bin/patchwork.js", import.meta.url));

/** A fresh folder with the given files. */
export function folderWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "pw-mcp-test-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  close(): Promise<void>;
}

/**
 * `patchwork mcp ARGS…` in `cwd`, connected with the MCP SDK's client (`capabilities`: what the
 * client declares, e.g. sampling). `setup` registers client handlers before the connection.
 */
export async function connect(
  args: string[],
  cwd: string,
  options: { capabilities?: Record<string, unknown>; setup?: (client: Client) => void; env?: Record<string, string> } = {},
): Promise<Connected> {
  const client = new Client({ name: "patchwork-mcp-test", version: "0.1.0" }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...options.env };
  const transport = new StdioClientTransport({ command: process.execPath, args: [patchworkBin, "mcp", ...args], cwd, env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return (r.content ?? []).map((c) => (c.type === "text" ? (c.text ?? "") : "")).join("");
}

/** The pids of the living descendants of `root` whose command line contains `needle`. */
export function descendants(root: number, needle: string): number[] {
  const parent = new Map(livingProcesses().map((p) => [p.pid, p.ppid]));
  const found: number[] = [];
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    for (let i = 0; p !== undefined && p > 1 && i < 50; i++) {
      if (p === root) {
        const cmd = safeRead(`/proc/${pid}/cmdline`).replace(/\0/g, " ");
        if (cmd.includes(needle)) found.push(pid);
        break;
      }
      p = parent.get(p);
    }
  }
  return found;
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Records every `notifications/progress` (in place of the SDK's own `onprogress` dispatch, which
 * drops a notification that reaches the client in the same read as the call's result: it runs
 * notification handlers a microtask after responses). Returns the messages of a token.
 */
export function recordProgress(client: Client): (token: string) => string[] {
  const seen: { token: unknown; message: string }[] = [];
  client.setNotificationHandler("notifications/progress", (n) => void seen.push({ token: n.params.progressToken, message: n.params.message ?? "" }));
  return (token) => seen.filter((s) => s.token === token).map((s) => s.message);
}

/** The pids of living processes (any parent) whose command line contains `needle`. */
export function processesWith(needle: string): number[] {
  return livingProcesses()
    .map((p) => p.pid)
    .filter((pid) => pid !== process.pid && safeRead(`/proc/${pid}/cmdline`).replace(/\0/g, " ").includes(needle));
}
