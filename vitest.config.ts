import { defineConfig } from "vitest/config";
import EndToEndFirstSequencer from "./test/helpers/end-to-end-first-sequencer";

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
