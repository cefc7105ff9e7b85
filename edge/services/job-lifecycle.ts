import { and, eq, inArray } from "drizzle-orm";
import { statusesLeadingTo } from "../../contract/job-states";
import { database } from "../db/client";
import { events, jobs } from "../db/schema";
import type { Env } from "../env";
import { newId } from "../lib/ids";
import type { MediaStorage } from "../storage/media-storage";
import { publishEvent } from "../webhooks/publish";
import { workspaceObject } from "../workspace/stub";
import { type JobRow, jobView } from "./job-view";

export type Finish =
  | { status: "canceled" }
  | { status: "failed"; code: string; message: string }
  | {
      status: "succeeded";
      resultKey: string;
      resultSizeBytes: number;
      /** The engine's report (JSON) and its picture's key, when the worker sent one. */
      report?: string;
      pictureKey?: string | null;
    };

export interface Finished {
  row: JobRow;
  /** True only for the call that made the terminal transition. */
  changed: boolean;
}

/**
 * The one way a job ends. The conditional UPDATE lets exactly one caller move an unfinished job
 * to its terminal status (cancel racing completion: one wins, the other sees the result); only
 * that caller settles or refunds the credits and records the event. `leaseToken` makes a worker's
 * completion (or the reaper's verdict on a lease) count only while that lease still holds the job.
 */
export async function finishJob(
  env: Env,
  storage: MediaStorage,
  jobId: string,
  finish: Finish,
  leaseToken?: string,
): Promise<Finished> {
  const db = database(env.DB);
  const now = Date.now();
  const conditions = [eq(jobs.id, jobId), inArray(jobs.status, statusesLeadingTo(finish.status))];
  if (leaseToken !== undefined) conditions.push(eq(jobs.leaseToken, leaseToken));
  const [moved] = await db
    .update(jobs)
    .set({
      status: finish.status,
      stage: null,
      finishedAt: now,
      updatedAt: now,
      leaseOwner: null,
      leaseToken: null,
      leaseExpiresAt: null,
      ...(finish.status === "succeeded"
        ? {
            progress: 1,
            resultKey: finish.resultKey,
            resultSizeBytes: finish.resultSizeBytes,
            report: finish.report ?? null,
            pictureKey: finish.pictureKey ?? null,
          }
        : {}),
      ...(finish.status === "failed" ? { errorCode: finish.code, errorMessage: finish.message } : {}),
      ...(finish.status === "canceled"
        ? { errorCode: "canceled", errorMessage: "The job was canceled before it finished." }
        : {}),
    })
    .where(and(...conditions))
    .returning();
  if (!moved) {
    const [current] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
    if (!current) throw new Error(`job ${jobId} vanished`);
    return { row: current, changed: false };
  }
  const row = await closeCredits(env, moved);
  await recordTerminalEvent(env, storage, row);
  return { row, changed: true };
}

/** Settles a succeeded job's credits or returns a failed or canceled job's, exactly once. */
export async function closeCredits(env: Env, row: JobRow): Promise<JobRow> {
  const stub = workspaceObject(env, row.workspaceId);
  if (row.status === "succeeded") {
    await stub.settleJob(row.id);
    return row;
  }
  await stub.refundJob(row.id);
  const [refunded] = await database(env.DB)
    .update(jobs)
    .set({ creditsRefunded: true })
    .where(eq(jobs.id, row.id))
    .returning();
  return refunded ?? row;
}

/**
 * Stores the job.<status> event with the Job as GET shows it at that moment. The unique index on
 * (job, type) keeps it to one per job, even when the reaper records a missed one again.
 */
export async function recordTerminalEvent(env: Env, storage: MediaStorage, row: JobRow): Promise<void> {
  const createdAt = Date.now();
  const id = newId("evt");
  const payload = {
    id,
    object: "event",
    type: `job.${row.status}`,
    created_at: new Date(createdAt).toISOString(),
    data: { object: await jobView(row, storage, createdAt) },
  };
  const inserted = await database(env.DB)
    .insert(events)
    .values({
      id,
      workspaceId: row.workspaceId,
      type: payload.type,
      jobId: row.id,
      payload: JSON.stringify(payload),
      createdAt,
    })
    .onConflictDoNothing()
    .returning({ id: events.id });
  if (inserted.length > 0) await publishEvent(env, id, row.workspaceId, createdAt);
}
