// `patchwork acp`: what a file declares runs from the panel as from the command line.
// `/run file.pw [entry] [args…]` picks and calls an entry with typed arguments, and each
// `@command` of the Patchwork files in a session's folder is a slash command of its own.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratch } from "./helpers.js";
import { Panel } from "./proxy-helpers.js";

let panel: Panel;
beforeAll(async () => {
  panel = await Panel.open({ prompts: [{ steps: [{ reply: "ok" }] }] });
});
afterAll(() => panel.close());

const GREETER = `export default trait Greeter: Agent {
    # Greets someone by name, several times
    @skill greet
    @command greet
    fun greet(name: string, times: number) {
        for var i in 1...times { print("hello " + name) }
        return times
    }
}
`;

/** The commands of the session's latest available_commands_update. */
function advertised(id: string): acp.AvailableCommand[] {
  const updates = (panel.updates.get(id) ?? []).filter((u) => u.sessionUpdate === "available_commands_update");
  const last = updates.at(-1);
  return last && "availableCommands" in last ? last.availableCommands : [];
}

/** Polls state the panel has accumulated (nothing that arrived earlier can be missed). */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting for the panel's state");
    await new Promise((r) => setTimeout(r, 20));
  }
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(scratch, "folder-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("patchwork acp: /run of a file's entries", () => {
  it("names an entry and converts its arguments to the declared types, as patchwork run does", async () => {
    const dir = folder({ "greeter.pw": GREETER });
    const id = await panel.newSession(dir);
    // What it printed, then its return value (as on every host: decision 0012).
    expect((await panel.prompt(id, "/run greeter.pw greet Ada 2")).text).toBe("hello Ada\nhello Ada\n2\n");
    // The one skill is the default entry; `--arg` names an argument.
    expect((await panel.prompt(id, "/run greeter.pw Bo --arg times=1")).text).toBe("hello Bo\n1\n");
    const bad = (await panel.prompt(id, "/run greeter.pw greet Ada many")).text;
    expect(bad).toContain("error[PW3065]");
    expect(bad).toMatch(/times/);
  });

  it("keeps `args` and `main` for files written for the panel", async () => {
    const dir = folder({
      "main.pw": 'fun main() { print("main sees " + args[0]) }\n',
      "script.pw": 'fun shout(w) { print(w + "!") }\nprint("args: " + args.join(","))\n',
    });
    const id = await panel.newSession(dir);
    expect((await panel.prompt(id, "/run main.pw one")).text).toBe("main sees one\n");
    // A file with statements runs them; a first word that names its function calls it after them.
    expect((await panel.prompt(id, "/run script.pw a b")).text).toBe("args: a,b\n");
    expect((await panel.prompt(id, "/run script.pw shout hey")).text).toBe("args: shout,hey\nhey!\n");
    // Words that name no entry of a file of declarations only: an error listing its entries.
    const lib = folder({ "lib.pw": "fun a(x) { return x }\nfun b() { return 1 }\n" });
    const libId = await panel.newSession(lib);
    expect((await panel.prompt(libId, "/run lib.pw zzz")).text).toContain("entry point 'zzz' not found (the file has no top-level statements or default entry that would take 'zzz' as an argument); its entries: a(x), b()");
  });
});

describe("patchwork acp: the folder's @commands are slash commands", () => {
  it("advertises each @command with its doc comment and runs it with typed arguments", async () => {
    const dir = folder({
      "greeter.pw": GREETER,
      // A file cannot take one of the proxy's own commands, nor a name an earlier file took.
      "other.pw": "@command run\nfun run() { print(1) }\n@command greet\nfun greet2() { print(2) }\n",
      "broken.pw": "@command nope\nfun nope( {\n",
    });
    const id = await panel.newSession(dir);
    await until(() => advertised(id).length > 0);
    const commands = advertised(id);
    expect(commands.map((c) => c.name)).toEqual(["run", "check", "reset", "greet"]);
    const greet = commands.find((c) => c.name === "greet")!;
    expect(greet.description).toBe("Greets someone by name, several times (greeter.pw)");
    expect(greet.input).toEqual({ hint: "<name> <times>" });

    const turn = await panel.prompt(id, '/greet "Ada Lovelace" 2');
    expect(turn.response.stopReason).toBe("end_turn");
    expect(turn.text).toBe("hello Ada Lovelace\nhello Ada Lovelace\n2\n");
    const missing = (await panel.prompt(id, "/greet")).text;
    expect(missing).toContain("error[PW3065]");
    expect(missing).toContain("greet(name: string, times: number)");
  });

  it("looks at the folder again after each turn and advertises the commands of a new file", async () => {
    const dir = folder({});
    mkdirSync(join(dir, "sub.pw")); // a folder named like a file is not a file
    const id = await panel.newSession(dir);
    await until(() => advertised(id).length > 0);
    expect(advertised(id).map((c) => c.name)).toEqual(["run", "check", "reset"]);
    const source = '@command twice\\nfun twice(n: number) { print(n * 2) }\\n';
    await panel.prompt(id, `{ write("tools.pw", "${source}") }`);
    await until(() => advertised(id).length > 3);
    expect(advertised(id).map((c) => c.name)).toEqual(["run", "check", "reset", "twice"]);
    expect((await panel.prompt(id, "/twice 21")).text).toBe("42\n");
    // A name that no file offers is not ours: it goes to the successor.
    expect((await panel.prompt(id, "/thrice 1")).text).toBe("ok");
  });
});
