import { eq } from "drizzle-orm";
import type { JobMessage } from "../../contract/job-message";
import { database } from "../db/client";
import { jobs } from "../db/schema";
import type { Env } from "../env";

/** Queues whose name starts with this carry jobs (adclean-jobs, per environment; -dlq for dead letters). */
export const JOBS_QUEUE_PREFIX = "adclean-jobs";

/**
 * Sends a job to the GPU workers. A failed send is logged, not thrown: the job is marked
 * dispatch_pending and the scheduled reaper sends it again. Nothing else marks a job for sending
 * again, so a job waiting in the queue, however long, has one message.
 */
export async function dispatchJob(env: Env, message: JobMessage, delaySeconds = 0): Promise<void> {
  try {
    await env.JOBS_QUEUE.send(message, { contentType: "json", delaySeconds });
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "warn",
        event: "dispatch_failed",
        job_id: message.job_id,
        error: String(error),
      }),
    );
    await database(env.DB).update(jobs).set({ dispatchPending: true }).where(eq(jobs.id, message.job_id));
  }
}
