import { execFile } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { QUIET_WRANGLER_ENV } from "../../scripts/lib/wrangler-env";

const root = path.resolve(import.meta.dirname, "../..");
const wrangler = path.join(root, "node_modules/.bin/wrangler");

describe("wrangler deploy --dry-run", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it.each(["production", "staging"])("bundles the %s environment with its own bindings", async (env) => {
    const outdir = await mkdtemp(path.join(tmpdir(), `adclean-dry-run-${env}-`));
    dirs.push(outdir);
    const { stdout, stderr } = await promisify(execFile)(
      wrangler,
      ["deploy", "--dry-run", "--env", env, "--outdir", outdir],
      { cwd: root, env: QUIET_WRANGLER_ENV, timeout: 120_000 },
    );
    const output = stdout + stderr;
    expect(output).toContain("--dry-run: exiting now.");
    // A config warning would mean a misspelt key (and makes wrangler look for updates online).
    expect(output).not.toMatch(/WARNING|ERROR/);
    expect(output).toContain(`adclean-jobs-${env}`);
    expect(output).toContain(`adclean-${env}`);
    expect(output).toContain(`"${env}"`);
    expect((await stat(path.join(outdir, "index.js"))).size).toBeGreaterThan(0);
  });
});

describe("wrangler.toml's queues", () => {
  it.each(["local", "staging", "production"])(
    "%s: the webhooks queue dead-letters to a queue whose consumer fails the event",
    (env) => {
      const config = unstable_readConfig(
        { config: path.join(root, "wrangler.toml"), ...(env === "local" ? {} : { env }) },
        { hideWarnings: true },
      );
      const suffix = env === "local" ? "" : `-${env}`;
      const declared = config.queues.consumers as { queue: string; dead_letter_queue?: string }[];
      const consumers = new Map(declared.map((consumer) => [consumer.queue, consumer]));
      expect(consumers.get(`adclean-webhooks${suffix}`)?.dead_letter_queue).toBe(
        `adclean-webhooks${suffix}-dlq`,
      );
      expect(consumers.has(`adclean-webhooks${suffix}-dlq`)).toBe(true);
    },
  );
});
