// Used by try-codex-acp.mjs: argument parsing, the process checks and
// the run loop that drives `patchwork run --agent <real adapter>` against a fake model API and
// reports what happened. Each script supplies its adapter's environment and fake server.
import { spawn } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(repo, "packages/cli/bin/patchwork.js");

const EXPECTED = {
  "categorize.pw": ["Categorized as: RECEIPT", "Extracting amount...", "RECEIPT"],
  "nested.json": ["Categorized as: RECEIPT", "Amount: $542.00"],
};

export function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {}
  }
  return undefined;
}

/**
 * Common arguments: `[ADAPTER] [--transport http|stdio|auto|all] [--program F]... [--keep DIR]
 * [--timeout S]`, plus the script's own `extra` options (name → default). Prints the script's
 * header comment for --help. Exits 2 on a bad argument, no adapter, or an unbuilt repository.
 */
export function trialSetup(scriptUrl, { name, adapterNames, install, extra = {} }) {
  const argv = process.argv.slice(2);
  const options = { ...extra };
  let adapter;
  let transportArg = "all";
  let keep;
  let timeoutS = 120;
  const programs = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--transport") transportArg = argv[++i];
    else if (a === "--program") programs.push(resolve(argv[++i]));
    else if (a === "--keep") keep = resolve(argv[++i]);
    else if (a === "--timeout") timeoutS = Number(argv[++i]);
    else if (a.startsWith("--") && a.slice(2) in extra) options[a.slice(2)] = argv[++i];
    else if (a === "-h" || a === "--help") {
      console.log(readFileSync(fileURLToPath(scriptUrl), "utf8").split("*/")[0]);
      process.exit(0);
    } else if (!a.startsWith("--") && !adapter) adapter = resolve(a);
    else {
      console.error(`unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (programs.length === 0) programs.push(join(repo, "examples/categorize.pw"), join(repo, "examples/nested.json"));
  adapter ??= adapterNames.map(onPath).find(Boolean);
  if (!adapter) {
    console.error(`no adapter: pass the path of ${adapterNames[0]}, or put it on PATH\n  (${install})`);
    process.exit(2);
  }
  try {
    accessSync(cli);
  } catch {
    console.error(`${cli} is missing: build the repository first (npm run build)`);
    process.exit(2);
  }
  const work = keep ?? mkdtempSync(join(tmpdir(), `${name}-`));
  mkdirSync(work, { recursive: true });
  return {
    adapter,
    programs,
    transports: transportArg === "all" ? ["http", "stdio"] : [transportArg],
    keep,
    timeoutS,
    work,
    options,
    marker: randomBytes(8).toString("hex"),
  };
}

/** Processes (other than us) whose environment carries `marker`: the adapter, its model process, relays. */
function markedProcesses(marker) {
  const found = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (!environ.includes(`PATCHWORK_TRY_MARKER=${marker}`)) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
      found.push({ pid: Number(pid), cmd });
    } catch {}
  }
  return found;
}

function killAll(processes) {
  for (const p of processes) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
}

function run(command, args, env, timeoutMs) {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGINT"), timeoutMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** A raw ACP `initialize` with the adapter, to show what it advertises. */
function probeInitialize(adapter, env, clientName) {
  return new Promise((done) => {
    const child = spawn(adapter, [], { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let buffer = "";
    const finish = (result) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      done(result);
    };
    const timer = setTimeout(() => finish({ error: "no answer to initialize within 30 s" }), 30_000);
    child.on("error", (e) => finish({ error: e.message }));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      buffer += d;
      for (const line of buffer.split("\n").slice(0, -1)) {
        try {
          const m = JSON.parse(line);
          if (m.id === 1) return finish(m.result ?? { error: JSON.stringify(m.error) });
        } catch {}
      }
    });
    const params = {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: clientName, version: "0" },
    };
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params })}\n`);
  });
}

/**
 * Probes `initialize`, then runs every program over every transport and reports each run:
 * exit status, permission requests (all must be allowed), `do` calls, the model requests (via
 * `summarize(requests, t0)`), output against the expected lines, and leftover processes.
 * Returns the number of failed runs.
 */
export async function runTrials(setup, { env, fake, clientName, summarize, deniedHint }) {
  const { adapter, programs, transports, keep, timeoutS, work, marker } = setup;
  const init = await probeInitialize(adapter, env, clientName);
  console.log(`\ninitialize:   agent ${init.agentInfo?.name ?? "?"} ${init.agentInfo?.version ?? ""}, protocol ${init.protocolVersion}`);
  console.log(
    `              mcpCapabilities ${JSON.stringify(init.agentCapabilities?.mcpCapabilities ?? null)}, ` +
      `sessionCapabilities ${JSON.stringify(init.agentCapabilities?.sessionCapabilities ?? null)}${init.error ? `  ERROR ${init.error}` : ""}`,
  );
  await new Promise((r) => setTimeout(r, 300));
  killAll(markedProcesses(marker));

  let failures = 0;
  for (const transport of transports) {
    for (const program of programs) {
      const name = basename(program);
      const before = fake.requests.length;
      const t0 = Date.now();
      const args = [cli, "run", program, "--agent", adapter, "--verbose"];
      if (transport !== "auto") args.push("--mcp-transport", transport);
      console.log(`\n═══ ${name} --mcp-transport ${transport}`);
      console.log(`$ node ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}`);
      const result = await run(process.execPath, args, env, timeoutS * 1000);
      await new Promise((r) => setTimeout(r, 500));
      const leftovers = markedProcesses(marker);
      killAll(leftovers);
      if (keep) {
        writeFileSync(join(work, `${name}.${transport}.stdout`), result.stdout);
        writeFileSync(join(work, `${name}.${transport}.stderr`), result.stderr);
      }
      const verbose = result.stderr.split("\n");
      const permissions = verbose.filter((l) => l.startsWith("[permission"));
      const denied = permissions.filter((l) => !l.endsWith(": allow]"));
      const dos = verbose.filter((l) => /^\[do\(\d+\)\]/.test(l));
      const started = verbose.find((l) => l.startsWith("[agent "));
      const expected = EXPECTED[name];
      const outLines = result.stdout.split("\n").filter(Boolean);
      const outputOk = expected ? expected.every((e, i) => outLines[i] === e) && outLines.length === expected.length : true;
      const ok = result.code === 0 && outputOk && leftovers.length === 0 && denied.length === 0;
      if (!ok) failures++;
      console.log(`exit ${result.code ?? result.signal} in ${(result.ms / 1000).toFixed(2)} s${started ? `; ${started}` : ""}`);
      console.log(`permission requests: ${permissions.length ? permissions.join(" ") : "none"}; do calls run: ${dos.length}`);
      if (denied.length) console.log(`  the do tool was not allowed${deniedHint ? `: ${deniedHint}` : ""}`);
      console.log("model API requests:");
      for (const line of summarize(fake.requests.slice(before), t0)) console.log(`  ${line}`);
      console.log("stdout:");
      for (const line of outLines) console.log(`  | ${line}`);
      if (result.code !== 0 || !outputOk) {
        console.log("stderr (tail):");
        for (const line of result.stderr.trim().split("\n").slice(-25)) console.log(`  ! ${line}`);
      }
      console.log(`processes left behind: ${leftovers.length ? leftovers.map((p) => `${p.pid} ${p.cmd}`).join("; ") : "none"}`);
      console.log(ok ? "RESULT: ok" : `RESULT: FAILED${expected && !outputOk ? ` (expected stdout ${JSON.stringify(expected)})` : ""}`);
    }
  }
  return failures;
}

/** Closes the fake server, removes the scratch directory (unless kept), prints the verdict and exits. */
export async function finishTrials(setup, fake, failures) {
  await fake.close();
  if (!setup.keep) rmSync(setup.work, { recursive: true, force: true });
  console.log(`\n${failures === 0 ? "all runs ok" : `${failures} run(s) failed`}`);
  process.exit(failures === 0 ? 0 : 1);
}
