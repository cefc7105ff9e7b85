import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "test/edge/vitest.config.ts",
      "test/node/vitest.config.ts",
      "test/gpu-worker/vitest.config.ts",
    ],
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
