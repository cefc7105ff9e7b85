import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT, readDevVars } from "../../scripts/lib/dev-config";

const execFileAsync = promisify(execFile);
const DEV_CONFIG_MODULE = path.join(PROJECT_ROOT, "scripts/lib/dev-config.ts");

const ROUNDS = 20;
const ROUND_MS = 100;

/**
 * `npm start`'s first step, once per round: waits for the round's common start time, then creates
 * or reads that round's file, and prints the admin token it got.
 */
const FIRST_RUNS = `
import path from "node:path";
import { ensureDevVars } from ${JSON.stringify(DEV_CONFIG_MODULE)};
const [startAt, dir] = process.argv.slice(1);
const tokens = [];
for (let round = 0; round < ${ROUNDS}; round++) {
  while (Date.now() < Number(startAt) + round * ${ROUND_MS}) {}
  tokens.push(ensureDevVars(path.join(dir, String(round), ".dev.vars")).ADMIN_TOKEN ?? "");
}
process.stdout.write(JSON.stringify(tokens));
`;

describe(".dev.vars on a fresh checkout", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gives stacks started at the same moment one admin token, the one in the file", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "adclean-devvars-"));
    for (let round = 0; round < ROUNDS; round++) mkdirSync(path.join(dir, String(round)));
    const startAt = Date.now() + 3000; // after every process has loaded tsx
    const runs = Array.from({ length: 8 }, () =>
      execFileAsync(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", FIRST_RUNS, String(startAt), dir],
        { cwd: PROJECT_ROOT },
      ),
    );
    const tokensByProcess = (await Promise.all(runs)).map((run) => JSON.parse(run.stdout) as string[]);
    for (let round = 0; round < ROUNDS; round++) {
      const roundDir = path.join(dir, String(round));
      const written = readDevVars(path.join(roundDir, ".dev.vars")).ADMIN_TOKEN;
      expect(written).toMatch(/^[\w-]{43}$/);
      expect(tokensByProcess.map((tokens) => tokens[round])).toEqual(tokensByProcess.map(() => written));
      expect(readdirSync(roundDir)).toEqual([".dev.vars"]); // no drafts left beside it
    }
  });
});
