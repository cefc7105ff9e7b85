import path from "node:path";
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "node",
    root: path.resolve(import.meta.dirname, "../.."),
    include: ["test/node/**/*.test.ts", "test/e2e/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
