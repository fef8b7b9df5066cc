/**
 * The `@command`s of the Patchwork files in an agent-panel session's folder, offered as slash
 * commands (`/greet Alice` runs greeter.pw's `@command greet` with the argument "Alice", as
 * `patchwork run greeter.pw greet Alice` would). Files are read again only when their size or
 * modification time changed, so a session can look again after every turn at little cost.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AvailableCommand } from "@agentclientprotocol/sdk/unstable";
import { parse } from "@patchwork/parser";
import { listEntries } from "@patchwork/interpreter";

/** A command a file offers: the file (absolute) and the entry's name in it. */
export interface FileCommand {
  file: string;
  entry: string;
  command: AvailableCommand;
}

/** At most this many files are looked at, and none larger than this (a folder of data is not a folder of programs). */
const MAX_FILES = 200;
const MAX_BYTES = 1 << 20;

interface Seen {
  key: string;
  commands: FileCommand[];
}

export class FileCommands {
  private readonly seen = new Map<string, Seen>();
  private found: FileCommand[] = [];

  /**
   * @param dir the session's folder
   * @param reserved names of the proxy's own commands, which a file cannot take
   */
  constructor(
    private readonly dir: string,
    private readonly reserved: ReadonlySet<string>,
  ) {}

  /** The commands found by the last `scan`. */
  get current(): readonly FileCommand[] {
    return this.found;
  }

  /** The command named `name`, from the last `scan`. */
  find(name: string): FileCommand | undefined {
    return this.found.find((c) => c.command.name === name);
  }

  /** Looks at the folder again; returns the commands when they changed since the last scan, else null. */
  scan(): FileCommand[] | null {
    const found: FileCommand[] = [];
    const names = new Set(this.reserved);
    const files = new Set<string>();
    for (const name of listPwFiles(this.dir)) {
      const path = join(this.dir, name);
      files.add(path);
      for (const c of this.commandsOf(path, name)) {
        // The first file (in name order) that offers a name keeps it; the others stay reachable by `/run`.
        if (names.has(c.command.name)) continue;
        names.add(c.command.name);
        found.push(c);
      }
    }
    for (const path of this.seen.keys()) if (!files.has(path)) this.seen.delete(path);
    const changed = JSON.stringify(found.map((c) => c.command)) !== JSON.stringify(this.found.map((c) => c.command));
    this.found = found;
    return changed ? found : null;
  }

  private commandsOf(path: string, fileName: string): FileCommand[] {
    let key: string;
    try {
      const st = statSync(path);
      if (!st.isFile() || st.size > MAX_BYTES) return [];
      key = `${st.size}:${st.mtimeMs}`;
    } catch {
      return [];
    }
    const seen = this.seen.get(path);
    if (seen?.key === key) return seen.commands;
    let commands: FileCommand[] = [];
    try {
      const text = readFileSync(path, "utf8");
      const { program, diagnostics } = parse(text, { fileName: path });
      if (program && !diagnostics.some((d) => d.severity === "error"))
        commands = listEntries(program, text).flatMap((e) => {
          // `@command name` (a method may also be a `@skill`, and may name its command differently).
          const note = e.decl.annotations.find((a) => a.name === "command");
          const name = note ? (note.arg ?? e.decl.name) : null;
          if (!name || !/^[A-Za-z_][\w-]*$/.test(name)) return [];
          return [{
            file: path,
            entry: e.target,
            command: {
              name,
              description: `${e.doc?.split("\n")[0] ?? e.signature} (${fileName})`,
              ...(e.params.length > 0 ? { input: { hint: e.params.map((p) => `<${p.name}>`).join(" ") } } : {}),
            },
          }];
        });
    } catch {
      commands = [];
    }
    this.seen.set(path, { key, commands });
    return commands;
  }
}

function listPwFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith(".pw") && !n.startsWith("."))
      .sort()
      .slice(0, MAX_FILES);
  } catch {
    return [];
  }
}
