import type { Env } from "../env";
import { handleWebhookMessage, type WebhookMessage } from "./delivery";

/** Queues whose name starts with this carry webhook attempts (adclean-webhooks, per environment). */
export const WEBHOOKS_QUEUE_PREFIX = "adclean-webhooks";

/**
 * The webhooks queue's consumer. An attempt's own failures (the receiver's answer) are handled and
 * rescheduled inside; only our own faults (D1 down, say) make the queue retry the message.
 */
export async function deliverWebhooks(env: Env, batch: MessageBatch<WebhookMessage>): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await handleWebhookMessage(env, message.body);
        message.ack();
      } catch (error) {
        console.error(
          JSON.stringify({ level: "error", event: "webhook_attempt_error", error: String(error) }),
        );
        message.retry({ delaySeconds: 30 });
      }
    }),
  );
}
