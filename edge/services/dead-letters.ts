import { type JobMessage, JobMessageSchema } from "../../contract/job-message";
import { parseContract } from "../../contract/violation";
import type { Env } from "../env";
import { mediaStorage } from "../storage/media-storage";
import { finishJob } from "./job-lifecycle";

/**
 * Messages the jobs queue gave up on (every retry used): their jobs fail with `dispatch_failed`
 * and get their credits back. A job that already ended is left as it is. A message that is no job
 * message (it breaks the contract) names no job to fail: it is logged and dropped.
 */
export async function deadLetteredJobs(env: Env, batch: MessageBatch<JobMessage>): Promise<void> {
  const storage = mediaStorage(env, env.PUBLIC_BASE_URL);
  for (const message of batch.messages) {
    let jobId: string;
    try {
      jobId = parseContract(JobMessageSchema, message.body, "a dead-lettered job message").job_id;
    } catch (error) {
      console.error(
        JSON.stringify({
          level: "error",
          event: "job_message_invalid",
          message_id: message.id,
          error: String(error),
        }),
      );
      message.ack();
      continue;
    }
    const text = "No worker could take the job in time. Its credits were returned; create it again.";
    await finishJob(env, storage, jobId, {
      status: "failed",
      code: "dispatch_failed",
      message: text,
    });
    message.ack();
  }
}
