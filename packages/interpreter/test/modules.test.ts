// Module identity: a module file loads once, whatever path (symlink, real path, the main
// program's own path) reaches it. Real files and real symlinks in a temporary directory.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSource, tempDir } from "./helpers.js";

function project(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function runMain(dir: string): ReturnType<typeof runSource> {
  const fileName = join(dir, "main.pw");
  return runSource(readFileSync(fileName, "utf8"), { cwd: dir, fileName });
}

const lib = 'print("lib loaded")\nexport fun id(x) { return x }\n';

describe("modules are keyed by real path", () => {
  it("a module imported through a file symlink and its real path loads once", () => {
    const dir = project({
      "lib.pw": lib,
      "main.pw": 'import {id} from "./lib.pw"\nimport alias from "./alias.pw"\nprint(id(1) + alias.id(2))\n',
    });
    symlinkSync(join(dir, "lib.pw"), join(dir, "alias.pw"));
    const r = runMain(dir);
    expect(r.error).toBeNull();
    expect(r.output).toBe("lib loaded\n3\n");
  });

  it("a module reached through a directory symlink loads once", () => {
    const dir = project({
      "pkg/lib.pw": lib,
      "main.pw": 'import a from "./pkg/lib.pw"\nimport b from "./linked/lib.pw"\nprint(a.id(1) + b.id(1))\n',
    });
    symlinkSync(join(dir, "pkg"), join(dir, "linked"), "dir");
    const r = runMain(dir);
    expect(r.error).toBeNull();
    expect(r.output).toBe("lib loaded\n2\n");
  });

  it("a symlink loop back to the importing directory ends (each file once)", () => {
    const dir = project({
      "main.pw": 'import a from "./a.pw"\nprint("main")\n',
      "a.pw": 'import again from "./up/a.pw"\nprint("a loaded")\nexport fun f() { return 1 }\n',
    });
    symlinkSync(dir, join(dir, "up"), "dir");
    const r = runMain(dir);
    expect(r.error).toBeNull();
    expect(r.output).toBe("a loaded\nmain\n");
  });

  it("a module that imports the main program gets it, and the main program runs once", () => {
    const dir = project({
      "main.pw": 'import b from "./b.pw"\nexport fun hello() { return "hello" }\nprint("main ran")\nprint(b.greet())\n',
      "b.pw": 'import m from "./main.pw"\nexport fun greet() { return m.hello() }\n',
    });
    const r = runMain(dir);
    expect(r.error).toBeNull();
    expect(r.output).toBe("main ran\nhello\n");
  });
});

describe("a function a module does not export (issue 35)", () => {
  it("calling it says it is not exported, and how to export it", () => {
    const dir = project({
      "lib.pw": "fun helper() { return 1 }\nexport fun pub() { return 2 }\n",
      "main.pw": 'import lib from "./lib.pw"\nprint(lib.pub())\nprint(lib.helper())\n',
    });
    const r = runMain(dir);
    const error = r.diagnostics.find((d) => d.severity === "error");
    expect(error?.code).toBe("PW3009");
    expect(error?.message).toBe("this object has no method 'helper': 'helper' is not exported by lib.pw: declare it `export fun helper(…)` there to use it from another file");
  });
});

describe("importing a function a module does not export (issue 35)", () => {
  it("says it is not exported", () => {
    const dir = project({
      "lib.pw": "fun helper() { return 1 }\nexport fun pub() { return 2 }\n",
      "main.pw": 'import {helper} from "./lib.pw"\nprint(helper())\n',
    });
    const error = runMain(dir).diagnostics.find((d) => d.severity === "error");
    expect(error?.message).toBe("module './lib.pw' has no export 'helper': 'helper' is not exported by lib.pw: declare it `export fun helper(…)` there to use it from another file");
  });
});
