import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { WorkerStage } from "../contract/job-states";
import type { ClaimedJob } from "../contract/worker-api";
import { admitPriced } from "./admission";
import type { WorkerConfig } from "./config";
import { DownloadError, downloadSource, MAX_SOURCE_BYTES } from "./download";
import { type EdgeClient, LeaseLostError } from "./edge-client";
import type { CleanVideo } from "./engine-contract";
import type { JobOutcome, WorkerMetrics } from "./metrics";
import { ProgressReporter } from "./progress";
import { StageClock, StageOverrunError, stageBudgetMs } from "./stage-budget";
import { uploadPicture, uploadResult } from "./upload";

/** Codes a customer can act on; anything else is our fault and says so. */
const CUSTOMER_CODES = new Set([
  "unreadable_video",
  "unsupported_format",
  "video_too_large",
  "url_not_allowed",
  "limit_exceeded",
  "download_too_slow",
]);

function failureOf(error: unknown): { code: string; message: string } {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && CUSTOMER_CODES.has(code) && error instanceof Error) {
    return { code, message: error.message };
  }
  return {
    code: "processing_failed",
    message: "The video could not be cleaned because of an error on our side. Its credits were returned.",
  };
}

export interface RunnerDeps {
  config: WorkerConfig;
  client: EdgeClient;
  clean: CleanVideo;
  metrics: WorkerMetrics;
  log?: (entry: Record<string, unknown>) => void;
}

/**
 * Runs one claimed job end to end: download, clean, upload the result, complete. A cancel seen in
 * a progress answer aborts everything within moments (ffmpeg children killed by the engine's
 * AbortSignal), uploads nothing and leaves no temporary file. So does a stage that runs past its
 * time budget, and the job is then failed (processing_timeout). Failures are reported with a code.
 */
export async function runJob(job: ClaimedJob, deps: RunnerDeps): Promise<JobOutcome> {
  const { config, client, clean } = deps;
  const log = deps.log ?? (() => undefined);
  const dir = path.join(config.workDir, `${job.id}-${job.attempt}`);
  const controller = new AbortController();
  // Why a stopped job stopped: a report's answer says so, or the edge threw LeaseLostError.
  let stopReason: "canceled" | "lease_lost" = "lease_lost";
  const reporter = new ProgressReporter(client, job.id, (reason) => {
    stopReason = reason;
    controller.abort(new Error(reason));
  });
  const clock = new StageClock(stageBudgetMs(config.stageBudgets, job.input.duration_seconds), (overrun) =>
    controller.abort(overrun),
  );
  await mkdir(dir, { recursive: true });
  const timing = deps.metrics.startJob();
  let current: WorkerStage | null = null;
  const update = (stage: WorkerStage, fraction: number) => {
    // One line per stage entered: with the metric's stage seconds, the job's story in the log.
    if (stage !== current) log({ event: "stage", job_id: job.id, stage });
    current = stage;
    timing.enter(stage);
    clock.enter(stage);
    reporter.update(stage, fraction);
  };
  let outcome: JobOutcome = "failed";
  try {
    const input = path.join(dir, "input.mp4");
    const output = path.join(dir, "clean.mp4");
    const picturePath = path.join(dir, "before-after.jpg");
    update("downloading", 0);
    // Without a Content-Length the size the edge read at creation stands in, else the largest
    // source: progress still moves with every byte, which keeps the lease.
    const sizeHint = job.input.size_bytes ?? MAX_SOURCE_BYTES;
    await downloadSource(job.source.url, input, {
      local: config.local,
      limits: config.download,
      signal: controller.signal,
      onProgress: (bytes, expected) => update("downloading", bytes / (expected ?? sizeHint)),
    });
    const engineStarted = performance.now();
    const summary = await clean(input, output, {
      admit: admitPriced(job.input),
      texts: job.texts,
      regions: job.regions ?? [],
      picturePath,
      signal: controller.signal,
      onProgress: update,
    });
    timing.frames(summary.frames, (performance.now() - engineStarted) / 1000);
    update("finalizing", 0);
    await reporter.flush();
    controller.signal.throwIfAborted();
    const { size } = await stat(output);
    await uploadResult(client, job.id, output, size, controller.signal);
    if (summary.pictureWritten) {
      // The picture illustrates the report; a job is not failed for it.
      await uploadPicture(client, job.id, picturePath, controller.signal).catch((error: unknown) =>
        log({ event: "picture_upload_failed", job_id: job.id, error: String(error) }),
      );
    }
    reporter.stop();
    await client.succeed(job.id, size, summary.report);
    log({ event: "job_succeeded", job_id: job.id, size_bytes: size });
    outcome = "succeeded";
    return outcome;
  } catch (error) {
    reporter.stop();
    // A stage past its budget aborts like a cancel does, but the job fails: its slot is given back.
    const reason: unknown = controller.signal.reason;
    const overrun = reason instanceof StageOverrunError ? reason : null;
    if (!overrun && (controller.signal.aborted || error instanceof LeaseLostError)) {
      log({ event: "job_stopped", job_id: job.id, reason: String(controller.signal.reason ?? error) });
      outcome = stopReason;
      return outcome;
    }
    const cause = overrun ?? error;
    const failure =
      cause instanceof StageOverrunError || cause instanceof DownloadError
        ? { code: cause.code, message: cause.message }
        : failureOf(cause);
    log({ event: "job_failed", job_id: job.id, code: failure.code, error: String(error) });
    await client.fail(job.id, failure.code, failure.message).catch(() => undefined);
    return outcome;
  } finally {
    clock.stop();
    timing.end(outcome);
    client.forget(job.id);
    await rm(dir, { recursive: true, force: true });
  }
}
