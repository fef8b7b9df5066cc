/**
 * The stdio relay: what an agent spawns as our stdio MCP server. It connects to the Unix
 * socket given as its first argument, presents the session token (env `PATCHWORK_MCP_TOKEN`,
 * or the second argument), then pipes stdin → socket and socket → stdout. Also exposed by
 * the CLI as `patchwork mcp-relay SOCKET`.
 */
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

export const RELAY_TOKEN_ENV = "PATCHWORK_MCP_TOKEN";

/** Absolute path of the relay script (run it with `process.execPath`). */
export const relayScriptPath: string = fileURLToPath(new URL("./relay-main.js", import.meta.url));

/** Runs the relay until either side closes; resolves with the exit code. */
export function runMcpRelay(argv: string[]): Promise<number> {
  const [socketPath, tokenArg] = argv;
  const token = process.env[RELAY_TOKEN_ENV] ?? tokenArg;
  if (!socketPath || !token) {
    process.stderr.write("usage: patchwork mcp-relay SOCKET (token in $PATCHWORK_MCP_TOKEN)\n");
    return Promise.resolve(2);
  }
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let settled = false;
    const finish = (code: number) => {
      if (settled) return;
      settled = true;
      process.stdin.unpipe(socket);
      process.stdin.pause();
      socket.destroy();
      resolve(code);
    };
    socket.once("connect", () => {
      socket.write(`${token}\n`);
      process.stdin.pipe(socket);
      socket.pipe(process.stdout);
    });
    socket.once("error", (error) => {
      process.stderr.write(`patchwork mcp-relay: ${error.message}\n`);
      finish(1);
    });
    socket.once("close", () => finish(0));
    process.stdin.once("end", () => socket.end());
  });
}
