import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Starts the end-to-end files first, then the engine's, then the rest: the longest files start
 * while the other worker still has short ones to run beside them, so the run does not end on one
 * long file alone. vitest's own order (project by name: edge, gpu-worker, node) left them last.
 */
export default class EndToEndFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) =>
      spec.moduleId.includes("/test/e2e/") ? 0 : spec.project.name === "gpu-worker" ? 1 : 2;
    // Array sort is stable: within a rank, vitest's order (known durations or file size) stays.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
