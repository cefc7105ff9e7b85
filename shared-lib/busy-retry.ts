/**
 * How long a job waits before it is offered again to a worker that had no free slot (or whose
 * workspace is at its concurrent-jobs limit): the same for both transports of the jobs queue, the
 * push consumer (edge/services/job-push.ts) and the GPU worker's pull (gpu-worker/pull-source.ts).
 */
export const BUSY_RETRY_SECONDS = 5;
