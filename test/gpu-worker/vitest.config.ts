import path from "node:path";
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "gpu-worker",
    root: path.resolve(import.meta.dirname, "../.."),
    include: ["test/gpu-worker/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
