import { mkdir, rm } from "node:fs/promises";
import { loadConfig } from "./config";
import { EdgeClient } from "./edge-client";
import { cleanVideo } from "./engine/clean";
import { FillPool, fillPoolSize } from "./engine/fill/pool";
import { checkMediaTools } from "./engine/media/tools-check";
import { selectVideoEncoder } from "./engine/media/video-encoder";
import { createOcrEngine } from "./engine/ocr/ocr";
import { JobIntake } from "./intake";
import type { JobSource } from "./job-source";
import { WorkerMetrics } from "./metrics";
import { PullJobSource } from "./pull-source";
import { type RunnerDeps, runJob } from "./runner";
import { workerHttpService } from "./server";

/** One JSON line per event; never keys, secrets or presigned URLs. */
const log = (entry: Record<string, unknown>) =>
  console.log(JSON.stringify({ at: new Date().toISOString(), ...entry }));

async function main(): Promise<void> {
  const config = loadConfig();
  // Before anything says ready: without ffmpeg and ffprobe every job would fail later.
  const tools = await checkMediaTools();
  // Whatever a killed run left behind is of no use to anyone: start clean.
  await rm(config.workDir, { recursive: true, force: true });
  await mkdir(config.workDir, { recursive: true });
  const ocr = await createOcrEngine();
  // Here rather than in the first job; the command-line cleaner skips it (it would only add to its time).
  await ocr.warmUp();
  // The fill's worker threads, kept across jobs like the text models (FILL_THREADS).
  const poolSize = fillPoolSize();
  const fillPool = poolSize > 0 ? new FillPool(poolSize) : undefined;
  // Decided once per process; the engine asks again and gets the same answer.
  const video = await selectVideoEncoder(ocr.provider === "cuda");
  log({
    event: "engine_ready",
    ffmpeg: tools.ffmpeg,
    ffprobe: tools.ffprobe,
    provider: ocr.provider,
    ...(ocr.cpuReason ? { cpu_reason: ocr.cpuReason } : {}),
    fill_threads: poolSize + 1,
    encoder: video.encoder,
    encoder_reason: video.reason,
  });
  const metrics = new WorkerMetrics(config.slots);
  const client = new EdgeClient(config, { log, metrics });
  const deps: RunnerDeps = {
    config,
    client,
    clean: (input, output, options) =>
      cleanVideo(input, output, { ...options, ocr, ...(fillPool ? { fillPool } : {}) }),
    metrics,
    log,
  };
  const intake = new JobIntake(config.slots, client, (job) => runJob(job, deps));
  // The HTTP server runs with both transports (health and metrics); with push it also takes the jobs.
  const sources: JobSource[] = [workerHttpService({ config, intake, metrics }, log)];
  if (config.pull) sources.push(new PullJobSource(config.pull, intake, log));
  for (const source of sources) await source.start();
  const shutdown = () => {
    for (const source of sources) void source.stop();
    // Running jobs stop with the process; their leases expire and the edge retries them elsewhere.
    Promise.all([ocr.close(), fillPool?.close()]).finally(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  log({ event: "fatal", error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
