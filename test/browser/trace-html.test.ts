// The HTML trace page in a real browser (Debian's `chromium`, headless): the page renders the
// run's tree from its inline data with no network, and a screenshot shows the timeline bars
// of both thinks and both do calls of a nested run. `npm run test:browser` (CI installs chromium).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodePng, findColor } from "./png.js";

const root = join(import.meta.dirname, "..", "..");
const bin = join(root, "packages", "cli", "bin", "patchwork.js");
const examples = join(root, "examples", "tests");

function chromium(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const profile = mkdtempSync(join(tmpdir(), "pw-chromium-"));
  const flags = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    // Nothing may be fetched: every host name fails to resolve.
    "--host-resolver-rules=MAP * ~NOTFOUND",
  ];
  const r = spawnSync("chromium", [...flags, ...args], { encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Groups of consecutive rows (a bar is a few rows tall). */
function bands(rows: Set<number>): number[] {
  const sorted = [...rows].sort((a, b) => a - b);
  const starts: number[] = [];
  sorted.forEach((row, i) => {
    if (i === 0 || row > sorted[i - 1]! + 1) starts.push(row);
  });
  return starts;
}

describe("patchwork trace --html in Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "pw-html-"));
  const trace = join(dir, "run.jsonl");
  const page = join(dir, "run.html");
  const run = spawnSync(process.execPath, [bin, "run", "nested.test.pw", "--replay", "nested.cassette.json", "--trace", trace], {
    cwd: examples,
    encoding: "utf8",
  });
  const html = spawnSync(process.execPath, [bin, "trace", trace, "--html", page], { encoding: "utf8" });

  it("renders the run's tree from the page's inline data", () => {
    expect([run.status, run.stderr]).toEqual([0, ""]);
    expect([html.status, html.stderr]).toEqual([0, ""]);
    const dom = chromium(["--dump-dom", `file://${page}`]);
    expect(dom.status).toBe(0);
    expect(dom.stdout).toContain('data-rendered="4"');
    const labels = [...dom.stdout.matchAll(/<span class="label">([^<]*)<\/span>/g)].map((m) => m[1]!.replace(/ · .*/, ""));
    expect(labels).toEqual(["think 1 at nested.test.pw:4:12", "do 0", "think 2 at nested.test.pw:9:18", "do 0"]);
    expect(dom.stdout).toMatch(/<details class="think" open="">/);
  });

  it("shows the timeline: a bar for each think and each do call", () => {
    const shot = join(dir, "shot.png");
    const r = chromium(["--window-size=1000,700", "--hide-scrollbars", `--screenshot=${shot}`, `file://${page}`]);
    expect(r.status).toBe(0);
    const image = decodePng(readFileSync(shot));
    expect([image.width, image.height]).toEqual([1000, 700]);
    const thinkBars = bands(findColor(image, [0x2a, 0x6f, 0xdb]).rows);
    const doBars = bands(findColor(image, [0xe8, 0x91, 0x2d]).rows);
    expect(thinkBars).toHaveLength(2);
    expect(doBars).toHaveLength(2);
    // In tree order, top to bottom: think 1, do 0, think 2, do 0.
    expect(thinkBars[0]!).toBeLessThan(doBars[0]!);
    expect(doBars[0]!).toBeLessThan(thinkBars[1]!);
    expect(thinkBars[1]!).toBeLessThan(doBars[1]!);
  });
});
