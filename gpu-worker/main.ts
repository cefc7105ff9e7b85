import { mkdir, rm } from "node:fs/promises";
import { loadConfig } from "./config";
import { EdgeClient } from "./edge-client";
import { cleanVideo } from "./engine/clean";
import { createOcrEngine } from "./engine/ocr/ocr";
import { JobIntake } from "./intake";
import type { JobSource } from "./job-source";
import { PullJobSource } from "./pull-source";
import { type RunnerDeps, runJob } from "./runner";
import { pushJobSource } from "./server";

/** One JSON line per event; never keys, secrets or presigned URLs. */
const log = (entry: Record<string, unknown>) =>
  console.log(JSON.stringify({ at: new Date().toISOString(), ...entry }));

async function main(): Promise<void> {
  const config = loadConfig();
  // Whatever a killed run left behind is of no use to anyone: start clean.
  await rm(config.workDir, { recursive: true, force: true });
  await mkdir(config.workDir, { recursive: true });
  const ocr = await createOcrEngine();
  log({
    event: "engine_ready",
    provider: ocr.provider,
    ...(ocr.cpuReason ? { cpu_reason: ocr.cpuReason } : {}),
  });
  const client = new EdgeClient(config);
  const deps: RunnerDeps = {
    config,
    client,
    clean: (input, output, options) => cleanVideo(input, output, { ...options, ocr }),
    log,
  };
  const intake = new JobIntake(config.slots, client, (job) => runJob(job, deps));
  const source: JobSource = config.pull
    ? new PullJobSource(config.pull, intake, log)
    : pushJobSource(config, intake, log);
  await source.start();
  const shutdown = () => {
    void source.stop();
    // Running jobs stop with the process; their leases expire and the edge retries them elsewhere.
    ocr.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  log({ event: "fatal", error: String(error) });
  process.exit(1);
});
