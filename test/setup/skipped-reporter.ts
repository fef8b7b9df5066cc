/**
 * After the summary, names every skipped test, so that "1 skipped" says which and why (issue 23):
 * a test that needs what this machine lacks says so in its title ("… (skipped: …)").
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SkippedReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        if (test.result().state === "skipped") skipped.push(`  ${module.moduleId.replace(`${process.cwd()}/`, "")} > ${test.fullName}`);
      }
    }
    if (skipped.length === 0) return;
    process.stdout.write(`\nSkipped (${skipped.length}), each for the reason in its title:\n${skipped.join("\n")}\n`);
  }
}
