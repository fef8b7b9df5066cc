/**
 * How a shell command is started, so that nothing it starts outlives the program
 * (docs/security.md, "Command output, signals and child processes").
 *
 * On Linux with util-linux `setpriv` and coreutils `timeout` (standard on Debian, Ubuntu,
 * Fedora…), a command runs as
 *
 *     setpriv --pdeathsig TERM -- timeout [-s KILL] -k 2 SECONDS /bin/sh -c COMMAND
 *
 * - `timeout` puts the command in a process group of its own and passes any SIGTERM, SIGINT
 *   or SIGHUP it receives to that whole group (then SIGKILL after 2 s if it is still there);
 *   with a time limit (SECONDS > 0) it kills the group with SIGKILL when time is up;
 * - `setpriv --pdeathsig TERM` has the kernel send that SIGTERM when the thread that started
 *   the command dies, however it dies (Ctrl-C, `kill`, a crash, `kill -9`): a program blocked
 *   in a synchronous command cannot run a signal handler, but its commands still go with it.
 *
 * Hosts start it `detached` (a session of its own): the command has no controlling terminal,
 * so one that insists on prompting there (sudo, an ssh password) fails at once instead of
 * stopping in a background process group, the same with and without an agent.
 *
 * Without `setpriv`, only a time limit is enforced on the group (`timeout` alone); without
 * `timeout`, the command runs as plain `/bin/sh -c` and a time limit is checked when it returns.
 */
import { existsSync } from "node:fs";
import { constants } from "node:os";

export interface ShellArgvOptions {
  /** Time left for the program; the command's process group is killed when it runs out. */
  timeoutMs?: number;
}

let tools: { setpriv: string | null; timeout: string | null } | undefined;

function find(names: string[]): string | null {
  return names.find((p) => existsSync(p)) ?? null;
}

function helpers(): { setpriv: string | null; timeout: string | null } {
  tools ??= {
    setpriv: process.platform === "linux" ? find(["/usr/bin/setpriv", "/bin/setpriv"]) : null,
    timeout: find(["/usr/bin/timeout", "/bin/timeout"]),
  };
  return tools;
}

/** The program and arguments that run `command` through `/bin/sh -c` (see above). */
export function shellArgv(command: string, options: ShellArgvOptions = {}): [string, string[]] {
  const sh = ["/bin/sh", "-c", command];
  const { setpriv, timeout } = helpers();
  const limited = options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs);
  if (!timeout || (!setpriv && !limited)) return [sh[0]!, sh.slice(1)];
  const seconds = limited ? Math.max(0.001, options.timeoutMs! / 1000).toFixed(3) : "0";
  const wrapped = [timeout, ...(limited ? ["-s", "KILL"] : []), "-k", "2", seconds, ...sh];
  if (!setpriv) return [wrapped[0]!, wrapped.slice(1)];
  return [setpriv, ["--pdeathsig", "TERM", "--", ...wrapped]];
}

/** The exit status a shell reports for a process killed by `signal`: 128 + its number. */
export function signalStatus(signal: NodeJS.Signals | null): number {
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}
