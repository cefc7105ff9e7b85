import type { JobMessage } from "../contract/job-message";
import { createApp } from "./app";
import { edgeConfig } from "./config";
import type { Env } from "./env";
import { JOBS_QUEUE_PREFIX } from "./queues/job-dispatch";
import { deadLetteredJobs } from "./services/dead-letters";
import { pushJobsToWorker } from "./services/job-push";
import { runScheduledTasks } from "./services/scheduled";
import { deliverWebhooks, WEBHOOKS_QUEUE_PREFIX } from "./webhooks/consumer";
import { deadLetteredWebhooks } from "./webhooks/dead-letters";
import type { WebhookMessage } from "./webhooks/delivery";

export { WorkspaceObject } from "./workspace/workspace-object";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    edgeConfig(env);
    ctx.waitUntil(runScheduledTasks(env, Date.now()));
  },
  async queue(batch, env) {
    edgeConfig(env);
    const deadLetters = batch.queue.endsWith("-dlq");
    if (batch.queue.startsWith(WEBHOOKS_QUEUE_PREFIX)) {
      const webhooks = batch as MessageBatch<WebhookMessage>;
      await (deadLetters ? deadLetteredWebhooks(env, webhooks) : deliverWebhooks(env, webhooks));
    } else if (deadLetters) {
      await deadLetteredJobs(env, batch as MessageBatch<JobMessage>);
    } else if (batch.queue.startsWith(JOBS_QUEUE_PREFIX)) {
      await pushJobsToWorker(env, batch as MessageBatch<JobMessage>);
    }
  },
} satisfies ExportedHandler<Env>;
