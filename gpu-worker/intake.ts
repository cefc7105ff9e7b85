import type { ClaimedJob } from "../contract/worker-api";
import type { EdgeClient } from "./edge-client";

export type IntakeAnswer =
  | { status: 202; body: { accepted: string }; finished: Promise<void> }
  | { status: 200; body: { dropped: string } }
  | { status: 503; body: { busy: string } };

/** Refusals that mean the message is done with: the job ended, or another worker holds it. */
const DROP = new Set(["finished", "leased", "not_found", "canceled"]);

/** Runs a claimed job to its end (runner.ts's runJob in production). */
export type RunClaimedJob = (job: ClaimedJob) => Promise<unknown>;

/**
 * Takes a job offered by a job source only when a slot is free, and claims it from the edge before
 * any work: a 202 means this worker now holds it (`finished` settles when the run ends); 200 means
 * drop the message (finished or leased elsewhere); 503 means offer it again later (no free slot, or
 * its workspace is at its limit).
 */
export class JobIntake {
  private running = 0;
  private readonly active = new Set<Promise<unknown>>();

  constructor(
    readonly slots: number,
    private readonly client: EdgeClient,
    private readonly run: RunClaimedJob,
  ) {}

  get busy(): number {
    return this.running;
  }

  async offer(jobId: string): Promise<IntakeAnswer> {
    if (this.running >= this.slots) return { status: 503, body: { busy: "no free slot" } };
    this.running++;
    let started = false;
    try {
      const claim = await this.client.claim(jobId);
      if ("refused" in claim) {
        return DROP.has(claim.refused)
          ? { status: 200, body: { dropped: claim.refused } }
          : { status: 503, body: { busy: claim.refused } };
      }
      const run = this.run(claim.claimed)
        .then(() => undefined)
        .finally(() => {
          this.running--;
          this.active.delete(run);
        });
      this.active.add(run);
      started = true;
      return { status: 202, body: { accepted: jobId }, finished: run };
    } finally {
      if (!started) this.running--;
    }
  }

  /** Resolves when every running job has ended (graceful shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.active]);
  }
}
