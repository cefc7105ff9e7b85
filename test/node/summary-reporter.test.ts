import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

test("the closing line counts a failing beforeAll and a file that cannot be imported as failures", async () => {
  const run = await promisify(execFile)(
    process.execPath,
    [
      path.join(root, "node_modules/vitest/vitest.mjs"),
      "run",
      "--config",
      "test/fixtures/reporter-run/vitest.config.ts",
    ],
    { cwd: root, env: { ...process.env, CI: "1" } },
  ).then(
    () => ({ exitCode: 0, stdout: "" }),
    (error: { code: number; stdout: string }) => ({ exitCode: error.code, stdout: error.stdout }),
  );
  expect(run.exitCode).toBe(1);
  const closingLine = run.stdout.trim().split("\n").at(-1);
  expect(closingLine).toBe("1 passed, 2 failed, 2 skipped");
});
