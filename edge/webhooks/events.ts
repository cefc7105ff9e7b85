import { and, desc, eq, lt, or } from "drizzle-orm";
import { database } from "../db/client";
import { events, webhookAttempts } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { Job } from "../schemas/jobs";
import { enqueueDelivery } from "./delivery";
import { publishEvent } from "./publish";

type EventRow = typeof events.$inferSelect;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function eventWithDelivery(row: EventRow) {
  return {
    ...JSON.parse(row.payload),
    delivery: {
      status: row.deliveryStatus,
      attempts: row.deliveryAttempts,
      delivered_at: iso(row.deliveredAt),
      last_error: row.deliveryLastError,
      next_attempt_at: iso(row.deliveryNextAttemptAt),
    },
  };
}

async function findEvent(env: Env, workspaceId: string, eventId: string): Promise<EventRow> {
  const [row] = await database(env.DB)
    .select()
    .from(events)
    .where(and(eq(events.id, eventId), eq(events.workspaceId, workspaceId)))
    .limit(1);
  if (!row) throw new ApiError("resource_not_found", `No event ${eventId} in this workspace.`, "id");
  return row;
}

/** Events newest first, each with how its delivery went. */
export async function listEvents(env: Env, workspaceId: string, limit: number, startingAfter?: string) {
  const db = database(env.DB);
  const conditions = [eq(events.workspaceId, workspaceId)];
  if (startingAfter) {
    const cursor = await findEvent(env, workspaceId, startingAfter).catch(() => {
      throw new ApiError(
        "invalid_parameter",
        "starting_after is not an event of this workspace.",
        "starting_after",
      );
    });
    const before = or(
      lt(events.createdAt, cursor.createdAt),
      and(eq(events.createdAt, cursor.createdAt), lt(events.id, cursor.id)),
    );
    if (before) conditions.push(before);
  }
  const rows = await db
    .select()
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.createdAt), desc(events.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    object: "list" as const,
    data: page.map(eventWithDelivery),
    has_more: hasMore,
    next_cursor: hasMore ? (page.at(-1)?.id ?? null) : null,
  };
}

/** Every attempt to deliver an event, oldest first. */
export async function listAttempts(env: Env, workspaceId: string, eventId: string) {
  await findEvent(env, workspaceId, eventId);
  const rows = await database(env.DB)
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.eventId, eventId))
    .orderBy(webhookAttempts.createdAt)
    .limit(100);
  return {
    object: "list" as const,
    has_more: false,
    data: rows.map((row) => ({
      id: row.id,
      object: "webhook_attempt" as const,
      attempt: row.attempt,
      url: row.url,
      response_status: row.responseStatus,
      latency_ms: row.latencyMs,
      error: row.error,
      created_at: new Date(row.createdAt).toISOString(),
    })),
  };
}

/** Sends an event again now, whatever happened to it before (the attempt count goes on). */
export async function redeliver(env: Env, workspaceId: string, eventId: string) {
  const row = await findEvent(env, workspaceId, eventId);
  const db = database(env.DB);
  const [pending] = await db
    .update(events)
    .set({ deliveryStatus: "pending", nextAttemptAt: null })
    .where(eq(events.id, row.id))
    .returning();
  const now = Date.now();
  await enqueueDelivery(
    env,
    { event_id: row.id, attempt: row.deliveryAttempts + 1, not_before: now, manual: true },
    now,
  );
  return eventWithDelivery(pending ?? row);
}

/** A sample succeeded Job for webhook.test, marked as such in its metadata. */
function sampleJob(nowMs: number): Job {
  const at = new Date(nowMs).toISOString();
  return {
    id: `job_test${newId("job").slice(8)}`,
    object: "job",
    status: "succeeded",
    stage: null,
    progress: 1,
    source: "api",
    input: {
      filename: "sample-ad.mp4",
      duration_seconds: 15,
      width: 1080,
      height: 1920,
      size_bytes: 5_000_000,
    },
    credits: 38,
    credits_refunded: false,
    result: null,
    error: null,
    metadata: { test: "true" },
    created_at: at,
    started_at: at,
    finished_at: at,
  };
}

/** Stores a webhook.test event and sends it like any other. */
export async function sendTestEvent(env: Env, workspaceId: string) {
  const now = Date.now();
  const id = newId("evt");
  const payload = {
    id,
    object: "event",
    type: "webhook.test",
    created_at: new Date(now).toISOString(),
    data: { object: sampleJob(now) },
  };
  await database(env.DB)
    .insert(events)
    .values({
      id,
      workspaceId,
      type: payload.type,
      jobId: null,
      payload: JSON.stringify(payload),
      createdAt: now,
    });
  await publishEvent(env, id, workspaceId, now);
  const [row] = await database(env.DB).select().from(events).where(eq(events.id, id));
  return eventWithDelivery(row as EventRow);
}
