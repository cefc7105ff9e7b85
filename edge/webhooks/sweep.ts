import { and, eq, isNull, lt, or } from "drizzle-orm";
import { database } from "../db/client";
import { events } from "../db/schema";
import type { Env } from "../env";
import { enqueueDelivery } from "./delivery";

const BATCH = 100;
/** A pending event this old with no attempt on the queue had its send fail: it is sent now. */
export const UNSENT_AFTER_MS = 60_000;
/**
 * An attempt this long past due never ran (its message was lost): it is sent again. Receivers tell
 * a repeat by its Service-Event-Id, as with any at-least-once delivery.
 */
export const OVERDUE_AFTER_MS = 60 * 60 * 1000;

/**
 * The scheduled sweep of webhook events stuck `pending`: those whose first queue send failed after
 * the event was stored, and those whose due attempt never ran. Each gets its next attempt now.
 * Returns how many were sent.
 */
export async function resendStuckEvents(env: Env, nowMs: number): Promise<number> {
  const stuck = await database(env.DB)
    .select({ id: events.id, attempts: events.deliveryAttempts })
    .from(events)
    .where(
      and(
        eq(events.deliveryStatus, "pending"),
        or(
          and(isNull(events.nextAttemptAt), lt(events.createdAt, nowMs - UNSENT_AFTER_MS)),
          lt(events.nextAttemptAt, nowMs - OVERDUE_AFTER_MS),
        ),
      ),
    )
    .limit(BATCH);
  for (const event of stuck) {
    await enqueueDelivery(env, { event_id: event.id, attempt: event.attempts + 1, not_before: nowMs }, nowMs);
  }
  return stuck.length;
}
