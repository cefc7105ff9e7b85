import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineProject } from "vitest/config";

const root = path.resolve(import.meta.dirname, "../..");

export default defineProject(async () => {
  const migrations = await readD1Migrations(path.join(root, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        main: path.join(root, "edge/index.ts"),
        wrangler: { configPath: path.join(root, "wrangler.toml") },
        miniflare: {
          bindings: {
            ENVIRONMENT: "local",
            ADMIN_TOKEN: "test-admin-token",
            WORKER_SECRET: "test-worker-secret",
            DATA_KEY: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
            // A receiver that never answers is given up on after this, not 15 s, to keep tests short.
            WEBHOOK_TIMEOUT_MS: "500",
            // Results over 1 MB go up in parts (lifecycle.test.ts); the video fixtures stay below it.
            MULTIPART_THRESHOLD_BYTES: "1000000",
            TEST_MIGRATIONS: migrations,
          },
        },
      }),
    ],
    test: {
      name: "edge",
      include: ["test/edge/**/*.test.ts"],
      root,
      setupFiles: ["test/edge/setup.ts"],
      globalSetup: ["test/edge/global-setup.ts"],
      // Rate-limit bursts may wait for the next clock minute so they never straddle two windows.
      testTimeout: 90_000,
    },
  };
});
