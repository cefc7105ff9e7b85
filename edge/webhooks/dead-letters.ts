import { and, eq } from "drizzle-orm";
import { database } from "../db/client";
import { events } from "../db/schema";
import type { Env } from "../env";
import type { WebhookMessage } from "./delivery";

/**
 * Webhook attempts the queue gave up on (our own fault, every retry used: D1 down, say): the event
 * is marked failed, so the customer sees it in the delivery log and can redeliver it, and the sweep
 * does not send it in a loop.
 */
export async function deadLetteredWebhooks(env: Env, batch: MessageBatch<WebhookMessage>): Promise<void> {
  for (const message of batch.messages) {
    console.error(
      JSON.stringify({ level: "error", event: "webhook_dead_lettered", event_id: message.body.event_id }),
    );
    await database(env.DB)
      .update(events)
      .set({ deliveryStatus: "failed", nextAttemptAt: null })
      .where(and(eq(events.id, message.body.event_id), eq(events.deliveryStatus, "pending")));
    message.ack();
  }
}
