import { setTimeout as sleep } from "node:timers/promises";
import type { Job } from "./types";

/** The statuses a job never leaves. */
export const FINISHED_STATUSES: ReadonlySet<Job["status"]> = new Set(["succeeded", "failed", "canceled"]);

export const isFinished = (job: Job): boolean => FINISHED_STATUSES.has(job.status);

export interface WaitOptions {
  /** Told of every change of status, stage or progress (and of the first answer). */
  onProgress?: ((job: Job) => void) | undefined;
  /** Time between two GETs (default 1000; GET /v1/jobs/{id} allows 240 a minute). */
  intervalMs?: number | undefined;
  /** Give up after this long with a WaitTimeoutError (default: wait as long as it takes). */
  timeoutMs?: number | undefined;
  /** Stops the wait (the job itself runs on: cancel it with cancelJob). */
  signal?: AbortSignal | undefined;
}

/** The job was still unfinished when the wait's time was up. */
export class WaitTimeoutError extends Error {
  override name = "WaitTimeoutError";
  constructor(readonly job: Job) {
    super(`Job ${job.id} is still ${job.status} after the wait's timeout.`);
  }
}

/** Polls a job until it is succeeded, failed or canceled, and resolves with it whichever it is. */
export async function waitForJob(
  getJob: (id: string, signal: AbortSignal | undefined) => Promise<Job>,
  id: string,
  options: WaitOptions = {},
): Promise<Job> {
  const deadline =
    options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  let last = "";
  for (;;) {
    const job = await getJob(id, options.signal);
    const state = `${job.status}/${job.stage}/${job.progress}`;
    if (state !== last) options.onProgress?.(job);
    last = state;
    if (isFinished(job)) return job;
    const wait = Math.min(options.intervalMs ?? 1000, deadline - Date.now());
    if (wait <= 0) throw new WaitTimeoutError(job);
    await sleep(wait, undefined, options.signal ? { signal: options.signal } : {});
  }
}
