import type { SerializedError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends the run with the plain line CI reads: "N passed, N failed" (and skipped, when any).
 * A file that fails to import, or a failing beforeAll/afterAll, leaves its tests skipped (or has
 * none), so "failed" also counts every file and suite that carries errors of its own, and every
 * error vitest caught outside a test: the line never says 0 failed when the run failed.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      for (const suite of [module, ...module.children.allSuites()]) {
        if (suite.errors().length > 0) failed++;
      }
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
    }
    console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  }
}
