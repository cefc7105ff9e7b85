import type { WorkerStage } from "../contract/job-states";
import { type EdgeClient, LeaseLostError } from "./edge-client";

/** The share of the whole job each stage the worker reports stands for, in order (README, Stages). */
const STAGE_SPANS: Record<WorkerStage, [number, number]> = {
  preparing: [0, 0.01],
  downloading: [0.01, 0.05],
  reading_text: [0.05, 0.35],
  cleaning: [0.35, 0.9],
  assembling: [0.9, 0.97],
  finalizing: [0.97, 1],
};

/** Overall progress for a fraction of one stage. */
export function overallProgress(stage: WorkerStage, fraction: number): number {
  const [start, end] = STAGE_SPANS[stage];
  return start + (end - start) * Math.min(1, Math.max(0, fraction));
}

const MIN_INTERVAL_MS = 1000;
/** Heartbeats must come well within the edge's lease (60 s by default). */
const HEARTBEAT_MS = Number(process.env.GPU_WORKER_HEARTBEAT_MS ?? 10_000);

/**
 * Reports a job's stage and progress to the edge at most once a second, never lower than before,
 * and at least every 10 s as the lease's heartbeat. When an answer says the job was canceled (or
 * the lease is lost), `onStop` is called once so the work can be aborted.
 */
export class ProgressReporter {
  private stage: WorkerStage = "preparing";
  private progress = 0;
  private lastSent = 0;
  private pending: NodeJS.Timeout | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private stopped = false;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: EdgeClient,
    private readonly jobId: string,
    private readonly onStop: (reason: "canceled" | "lease_lost") => void,
  ) {
    this.heartbeat = setInterval(() => this.send(), HEARTBEAT_MS);
  }

  update(stage: WorkerStage, fraction: number): void {
    const overall = overallProgress(stage, fraction);
    const stageChanged = stage !== this.stage;
    this.stage = stage;
    this.progress = Math.max(this.progress, overall);
    if (stageChanged || Date.now() - this.lastSent >= MIN_INTERVAL_MS) {
      this.send();
    } else if (!this.pending) {
      this.pending = setTimeout(() => this.send(), MIN_INTERVAL_MS - (Date.now() - this.lastSent));
    }
  }

  /** Sends the latest state; reports are chained so they arrive in order. */
  private send(): void {
    if (this.stopped) return;
    if (this.pending) clearTimeout(this.pending);
    this.pending = null;
    this.lastSent = Date.now();
    const { stage, progress } = this;
    this.sending = this.sending.then(async () => {
      try {
        if (await this.client.progress(this.jobId, stage, Math.min(progress, 0.999))) this.halt("canceled");
      } catch (error) {
        if (error instanceof LeaseLostError) this.halt("lease_lost");
        // A network blip or another refusal (the client logged and counted it): the next report
        // or heartbeat tries again, and a lease that runs out meanwhile is the reaper's to retry.
      }
    });
  }

  private halt(reason: "canceled" | "lease_lost"): void {
    if (this.stopped) return;
    this.stop();
    this.onStop(reason);
  }

  /** Waits for reports already sent (so the last stage is recorded before completing). */
  async flush(): Promise<void> {
    await this.sending;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.heartbeat);
    if (this.pending) clearTimeout(this.pending);
  }
}
