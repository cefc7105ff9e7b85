import { and, eq, gt, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import { RUNNING_STATUSES, TERMINAL_STATUSES } from "../../contract/job-states";
import { database } from "../db/client";
import { events, jobs } from "../db/schema";
import type { Env } from "../env";
import { dispatchJob } from "../queues/job-dispatch";
import type { MediaStorage } from "../storage/media-storage";
import { closeCredits, finishJob, recordTerminalEvent } from "./job-lifecycle";
import { MAX_ATTEMPTS } from "./leases";

const BATCH = 100;
/** A lost job waits this long per run it already had before a worker may take it again. */
export const RETRY_DELAY_SECONDS = 5;
/** How far back the sweep looks for terminal jobs whose event was never recorded. */
const RECONCILE_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface ReaperReport {
  retried: number;
  failed: number;
  redispatched: number;
  reconciled: number;
}

/**
 * Sends again one batch of the queued jobs that match `which`, marking each touched (and no longer
 * pending) first, so a second call right after sends nothing twice.
 */
async function sendQueuedAgain(env: Env, nowMs: number, which: SQL): Promise<number> {
  const db = database(env.DB);
  const due = await db
    .select({ id: jobs.id, workspaceId: jobs.workspaceId })
    .from(jobs)
    .where(and(eq(jobs.status, "queued"), which))
    .limit(BATCH);
  for (const job of due) {
    await db.update(jobs).set({ updatedAt: nowMs, dispatchPending: false }).where(eq(jobs.id, job.id));
    await dispatchJob(env, { job_id: job.id, workspace_id: job.workspaceId });
  }
  return due.length;
}

/**
 * The reaper's resend: only jobs whose queue send failed. A job whose message waits in the queue
 * (every worker busy, its workspace at its limit) is never sent twice, however long it waits.
 */
export const redispatchFailedSends = (env: Env, nowMs: number) =>
  sendQueuedAgain(env, nowMs, eq(jobs.dispatchPending, true));

/**
 * After a restart that lost the local queue (wrangler dev keeps it in memory): one batch of the
 * queued jobs not yet sent again at `nowMs`.
 */
export const redispatchQueued = (env: Env, nowMs: number) =>
  sendQueuedAgain(env, nowMs, lt(jobs.updatedAt, nowMs));

/**
 * The scheduled sweep that keeps every job moving and every credit accounted for:
 * - a running job whose lease expired (its worker died) goes back to the queue with stage
 *   `retrying`, or fails with `worker_lost` (credits returned) after MAX_ATTEMPTS runs;
 * - a queued job whose queue send failed is sent again;
 * - a job that ended while its refund or event was interrupted gets them now.
 */
export async function reapJobs(env: Env, storage: MediaStorage, nowMs: number): Promise<ReaperReport> {
  const db = database(env.DB);
  const report: ReaperReport = { retried: 0, failed: 0, redispatched: 0, reconciled: 0 };

  const expired = await db
    .select()
    .from(jobs)
    .where(and(inArray(jobs.status, RUNNING_STATUSES), lt(jobs.leaseExpiresAt, nowMs)))
    .limit(BATCH);
  for (const job of expired) {
    if (job.attempts >= MAX_ATTEMPTS) {
      const message = `The job could not be finished after ${MAX_ATTEMPTS} attempts. Its credits were returned.`;
      const done = await finishJob(
        env,
        storage,
        job.id,
        { status: "failed", code: "worker_lost", message },
        job.leaseToken ?? "",
      );
      if (done.changed) report.failed++;
      continue;
    }
    const [requeued] = await db
      .update(jobs)
      .set({
        status: "queued",
        stage: "retrying",
        leaseOwner: null,
        leaseToken: null,
        leaseExpiresAt: null,
        updatedAt: nowMs,
      })
      .where(and(eq(jobs.id, job.id), inArray(jobs.status, RUNNING_STATUSES), lt(jobs.leaseExpiresAt, nowMs)))
      .returning({ id: jobs.id });
    if (requeued) {
      // Back off before the retry, so a video that kills its worker does not take down the next one at once.
      await dispatchJob(
        env,
        { job_id: job.id, workspace_id: job.workspaceId },
        RETRY_DELAY_SECONDS * job.attempts,
      );
      report.retried++;
    }
  }

  report.redispatched = await redispatchFailedSends(env, nowMs);

  const unrefunded = await db
    .select()
    .from(jobs)
    .where(and(inArray(jobs.status, ["failed", "canceled"]), eq(jobs.creditsRefunded, false)))
    .limit(BATCH);
  for (const job of unrefunded) {
    await closeCredits(env, job);
    report.reconciled++;
  }

  const withoutEvent = await db
    .select({ job: jobs })
    .from(jobs)
    .leftJoin(events, and(eq(events.jobId, jobs.id), eq(events.type, sql`'job.' || ${jobs.status}`)))
    .where(
      and(
        inArray(jobs.status, TERMINAL_STATUSES),
        isNull(events.id),
        lt(jobs.finishedAt, nowMs - 60_000),
        gt(jobs.finishedAt, nowMs - RECONCILE_WINDOW_MS),
      ),
    )
    .limit(BATCH);
  for (const { job } of withoutEvent) {
    await recordTerminalEvent(env, storage, job);
    report.reconciled++;
  }
  return report;
}
