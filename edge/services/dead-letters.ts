import type { Env } from "../env";
import { mediaStorage } from "../storage/media-storage";
import type { JobMessage } from "./dispatch";
import { finishJob } from "./job-lifecycle";

/**
 * Messages the jobs queue gave up on (every retry used): their jobs fail with `dispatch_failed`
 * and get their credits back. A job that already ended is left as it is.
 */
export async function deadLetteredJobs(env: Env, batch: MessageBatch<JobMessage>): Promise<void> {
  const storage = mediaStorage(env, env.PUBLIC_BASE_URL);
  for (const message of batch.messages) {
    const text = "No worker could take the job in time. Its credits were returned; create it again.";
    await finishJob(env, storage, message.body.job_id, {
      status: "failed",
      code: "dispatch_failed",
      message: text,
    });
    message.ack();
  }
}
