import path from "node:path";
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "node",
    root: path.resolve(import.meta.dirname, "../.."),
    include: ["test/node/**/*.test.ts", "test/e2e/**/*.test.ts"],
    // The e2e files start their own stacks: one file at a time keeps the 2-core machine responsive.
    fileParallelism: false,
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
