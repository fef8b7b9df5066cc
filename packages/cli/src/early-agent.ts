// The agent process, spawned before the CLI loads the agent runtime (ACP and MCP SDKs, zod:
// ≈ 0.2–0.5 s on this project's machines) so that the agent starts while that loads and while
// the program is parsed; `runWithAgent` then takes it over (`AcpAgentOptions.process`). Until
// it does, a signal that stops the CLI kills the agent's process group first.
import { constants } from "node:os";
import { AgentProcess } from "@patchwork/agent/process";
import { resolveAgentCommand } from "./presets.js";

const STOP_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export interface EarlyAgent {
  process: AgentProcess;
  /** The command it runs (the preset resolved). */
  command: string;
  /** The agent runtime owns the process now (its own signal handling and kill on exit). */
  handOver(): void;
  /** Nothing took the process over (the run stopped before): kill it. */
  abandon(): void;
}

export function spawnAgentEarly(agentCommand: string, cwd: string): EarlyAgent {
  const command = resolveAgentCommand(agentCommand);
  const child = new AgentProcess(command, { cwd });
  const onExit = () => child.killNow();
  const onSignal = (signal: NodeJS.Signals) => {
    child.killNow();
    process.exit(128 + (constants.signals[signal] ?? 0)); // the status a shell reports for the signal
  };
  process.once("exit", onExit);
  for (const signal of STOP_SIGNALS) process.once(signal, onSignal);
  const release = () => {
    process.off("exit", onExit);
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
  return {
    process: child,
    command,
    handOver: release,
    abandon() {
      release();
      child.killNow();
    },
  };
}
