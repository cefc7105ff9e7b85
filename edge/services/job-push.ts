import type { JobMessage } from "../../contract/job-message";
import { BUSY_RETRY_SECONDS } from "../../shared-lib/busy-retry";
import type { Env } from "../env";

/**
 * The local transport of the jobs queue: offers each job to the GPU worker over HTTP. The worker
 * claims it before answering 202; 200 means the job needs no work (finished, or leased
 * elsewhere): both ack. A busy or unreachable worker makes the message come back later.
 * (Production workers pull from the queue over Cloudflare's HTTP API instead.)
 */
export async function pushJobsToWorker(env: Env, batch: MessageBatch<JobMessage>): Promise<void> {
  for (const message of batch.messages) {
    try {
      const response = await fetch(`${env.GPU_WORKER_URL}/jobs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${env.WORKER_SECRET}`, "Content-Type": "application/json" },
        body: JSON.stringify(message.body),
      });
      await response.body?.cancel();
      if (response.status === 200 || response.status === 202) message.ack();
      else if (response.status === 503) await offerAgainLater(env, message);
      else message.retry({ delaySeconds: BUSY_RETRY_SECONDS });
    } catch {
      message.retry({ delaySeconds: BUSY_RETRY_SECONDS * 2 });
    }
  }
}

/**
 * A busy answer (no free slot, or the workspace at its concurrent_jobs limit) is waiting, not a
 * failure: a fresh message replaces this one, so waiting never uses up the queue's retries and a
 * long backlog never reaches the dead-letter queue. Only when that send fails does the message
 * fall back to a counted retry.
 */
async function offerAgainLater(env: Env, message: Message<JobMessage>): Promise<void> {
  try {
    await env.JOBS_QUEUE.send(message.body, { contentType: "json", delaySeconds: BUSY_RETRY_SECONDS });
    message.ack();
  } catch {
    message.retry({ delaySeconds: BUSY_RETRY_SECONDS });
  }
}
