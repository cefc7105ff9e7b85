import { and, eq, inArray, isNotNull, isNull, or, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { TERMINAL_STATUSES } from "../../contract/job-states";
import { NO_PLAN_LIMITS, PLAN_IN_FORCE_STATUSES } from "../billing/plans";
import { database } from "../db/client";
import { jobs, plans, uploads, workspaces } from "../db/schema";
import type { Env } from "../env";
import type { MediaStorage } from "../storage/media-storage";

const DAY_MS = 24 * 60 * 60 * 1000;
/** D1 binds at most 100 parameters a query: the ids of one batch must fit. */
const BATCH = 50;
/** Bounds one run; what is left waits for the next (every 5 minutes). */
const MAX_BATCHES_PER_RUN = 10;

/** What a succeeded job whose result was deleted shows in `error` (its `result` is null). */
export const RESULT_EXPIRED = {
  code: "result_expired",
  message: "The cleaned file was deleted at the end of the plan's retention period; create the job again.",
};

export interface RetentionReport {
  results: number;
  uploads: number;
}

/**
 * The workspace's retention in days as SQL, judged now: its plan's `retention_days` while the plan
 * is in force, else the no-plan value (the same rule as the account's `limits.retention_days`).
 */
const retentionDays = sql`CASE WHEN ${workspaces.subscriptionStatus} IN (${sql.join(
  PLAN_IN_FORCE_STATUSES.map((status) => sql`${status}`),
  sql`, `,
)}) AND ${plans.retentionDays} IS NOT NULL THEN ${plans.retentionDays} ELSE ${NO_PLAN_LIMITS.retentionDays} END`;

const olderThanRetention = (column: AnySQLiteColumn | SQL, nowMs: number) =>
  sql`${column} < ${nowMs} - ${retentionDays} * ${DAY_MS}`;

/**
 * The scheduled sweep that deletes files past their workspace's retention: a succeeded job's
 * result (counted from when it finished; the job stays succeeded, with `result` null and `error`
 * RESULT_EXPIRED) and an upload's file (counted from when it arrived, once no unfinished job needs it).
 */
export async function purgeExpiredMedia(
  env: Env,
  storage: MediaStorage,
  nowMs: number,
): Promise<RetentionReport> {
  return {
    results: await inBatches(() => purgeResults(env, storage, nowMs)),
    uploads: await inBatches(() => purgeUploads(env, storage, nowMs)),
  };
}

async function inBatches(purgeBatch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
    const purged = await purgeBatch();
    total += purged;
    if (purged < BATCH) break;
  }
  return total;
}

async function purgeResults(env: Env, storage: MediaStorage, nowMs: number): Promise<number> {
  const db = database(env.DB);
  const due = await db
    .select({ id: jobs.id, resultKey: jobs.resultKey, pictureKey: jobs.pictureKey })
    .from(jobs)
    .innerJoin(workspaces, eq(jobs.workspaceId, workspaces.id))
    .leftJoin(plans, eq(workspaces.planId, plans.id))
    .where(
      and(
        eq(jobs.status, "succeeded"),
        isNotNull(jobs.resultKey),
        olderThanRetention(jobs.finishedAt, nowMs),
      ),
    )
    .limit(BATCH);
  if (due.length === 0) return 0;
  // Objects first: should the update fail, the next run deletes nothing new and marks them then.
  // The before/after picture goes with the result (the report's lists stay: they are text).
  await storage.delete(
    due.flatMap((job) => [job.resultKey as string, ...(job.pictureKey ? [job.pictureKey] : [])]),
  );
  await db
    .update(jobs)
    .set({
      resultKey: null,
      pictureKey: null,
      errorCode: RESULT_EXPIRED.code,
      errorMessage: RESULT_EXPIRED.message,
      updatedAt: nowMs,
    })
    .where(
      inArray(
        jobs.id,
        due.map((job) => job.id),
      ),
    );
  return due.length;
}

/**
 * An upload counts from its file's arrival; one never seen arriving (a presigned PUT straight to R2,
 * no job made from it) counts from the end of its upload window, the latest it could have arrived.
 */
const uploadArrival = sql`COALESCE(${uploads.receivedAt}, ${uploads.expiresAt})`;

async function purgeUploads(env: Env, storage: MediaStorage, nowMs: number): Promise<number> {
  const db = database(env.DB);
  const due = await db
    .select({ id: uploads.id, objectKey: uploads.objectKey })
    .from(uploads)
    .innerJoin(workspaces, eq(uploads.workspaceId, workspaces.id))
    .leftJoin(plans, eq(workspaces.planId, plans.id))
    .leftJoin(jobs, eq(uploads.jobId, jobs.id))
    .where(
      and(
        isNull(uploads.purgedAt),
        olderThanRetention(uploadArrival, nowMs),
        or(isNull(uploads.jobId), inArray(jobs.status, TERMINAL_STATUSES)),
      ),
    )
    .limit(BATCH);
  if (due.length === 0) return 0;
  await storage.delete(due.map((upload) => upload.objectKey));
  await db
    .update(uploads)
    .set({ purgedAt: nowMs })
    .where(
      inArray(
        uploads.id,
        due.map((upload) => upload.id),
      ),
    );
  return due.length;
}
