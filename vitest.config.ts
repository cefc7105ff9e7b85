import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Starts the end-to-end files first, then the engine's, then the rest: the longest files start
 * while the other worker still has short ones to run beside them, so the run does not end on one
 * long file alone. vitest's own order (project by name: edge, gpu-worker, node) left them last.
 * Kept in this file: Vite warns about a config importing a module without its extension, and tsc
 * refuses the `.ts` one.
 */
class EndToEndFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) =>
      spec.moduleId.includes("/test/e2e/") ? 0 : spec.project.name === "gpu-worker" ? 1 : 2;
    // Array sort is stable: within a rank, vitest's order (known durations or file size) stays.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    projects: [
      "test/edge/vitest.config.ts",
      "test/node/vitest.config.ts",
      "test/gpu-worker/vitest.config.ts",
    ],
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
    // Vitest's default (cores - 1) runs one file at a time on a 2-core machine. Two at once, of any
    // project: an e2e file mostly waits on its own stack (own ports, state and worker folder), so
    // the other core runs workerd, the engine or another stack meanwhile.
    maxWorkers: 2,
    sequence: { sequencer: EndToEndFirstSequencer },
  },
});
