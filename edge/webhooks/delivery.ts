import { eq, sql } from "drizzle-orm";
import { safeFetch, UrlNotAllowedError } from "../../shared-lib/url-policy";
import { edgeConfig } from "../config";
import { database } from "../db/client";
import { events, jobs, webhookAttempts, workspaces } from "../db/schema";
import { type Env, isLocal } from "../env";
import { newId } from "../lib/ids";
import { jobView } from "../services/job-view";
import { findWorkspace } from "../services/workspaces";
import { mediaStorage } from "../storage/media-storage";
import { type DisabledReason, signingSecrets } from "./endpoint";
import {
  DISABLE_AFTER_FAILING_MS,
  MAX_ATTEMPTS,
  MAX_QUEUE_DELAY_SECONDS,
  nextDelaySeconds,
  parseRetryAfter,
} from "./schedule";
import { SIGNATURE_HEADER, signatureHeader } from "./signature";
import { markSkipped, skipReason } from "./skip";

export interface WebhookMessage {
  event_id: string;
  /** 1-based number of this attempt in the event's retry schedule. */
  attempt: number;
  /** Unix ms before which the attempt must not run (waits longer than a queue delay are chained). */
  not_before: number;
  /** A redelivery asked for through the API: sent even if the event was delivered before. */
  manual?: boolean;
}

export const EVENT_ID_HEADER = "Service-Event-Id";

/**
 * Puts an attempt on the webhooks queue, at most 12 hours ahead (the rest is chained on arrival),
 * and records when it is due: a pending event without one is what the sweep sends again.
 */
export async function enqueueDelivery(env: Env, message: WebhookMessage, nowMs = Date.now()): Promise<void> {
  const waitSeconds = Math.max(0, Math.ceil((message.not_before - nowMs) / 1000));
  await env.WEBHOOKS_QUEUE.send(message, {
    contentType: "json",
    delaySeconds: Math.min(waitSeconds, MAX_QUEUE_DELAY_SECONDS),
  });
  await database(env.DB)
    .update(events)
    .set({ nextAttemptAt: message.not_before })
    .where(eq(events.id, message.event_id));
}

/**
 * The body an attempt sends: the stored event, with a succeeded job's result address made now, so
 * that it is valid one hour from this attempt however late in the retry schedule it comes (and
 * null once retention deleted the file). Other events go as stored.
 */
async function attemptBody(env: Env, event: typeof events.$inferSelect, nowMs: number): Promise<string> {
  if (event.type !== "job.succeeded" || !event.jobId) return event.payload;
  const [row] = await database(env.DB).select().from(jobs).where(eq(jobs.id, event.jobId)).limit(1);
  if (!row) return event.payload;
  const payload = JSON.parse(event.payload) as { data: { object: { result: unknown } } };
  const { result } = await jobView(row, mediaStorage(env, env.PUBLIC_BASE_URL), nowMs);
  payload.data.object.result = result;
  return JSON.stringify(payload);
}

interface AttemptResult {
  status: number | null;
  latencyMs: number;
  error: string | null;
  retryAfterSeconds: number | null;
}

/** One POST of the event to the endpoint: no redirects followed (a redirect is a failure), 15 s at most. */
async function post(
  env: Env,
  url: string,
  body: string,
  eventId: string,
  secrets: string[],
): Promise<AttemptResult> {
  const started = Date.now();
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "adclean-webhooks/1.0",
    [EVENT_ID_HEADER]: eventId,
    [SIGNATURE_HEADER]: await signatureHeader(secrets, body, Math.floor(started / 1000)),
  };
  try {
    const response = await safeFetch(
      url,
      {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(edgeConfig(env).WEBHOOK_TIMEOUT_MS),
      },
      { local: isLocal(env), maxRedirects: 0 },
    );
    await response.body?.cancel();
    const isRedirect = response.status >= 300 && response.status < 400;
    return {
      status: response.status,
      latencyMs: Date.now() - started,
      error: isRedirect ? "redirects are not followed" : null,
      retryAfterSeconds:
        response.status === 429 ? parseRetryAfter(response.headers.get("Retry-After")) : null,
    };
  } catch (error) {
    const reason =
      error instanceof UrlNotAllowedError
        ? `address not allowed: ${error.message}`
        : error instanceof Error && error.name === "TimeoutError"
          ? "timed out after 15 s"
          : "connection failed";
    return { status: null, latencyMs: Date.now() - started, error: reason, retryAfterSeconds: null };
  }
}

/**
 * Runs one delivery attempt from the webhooks queue: signs and POSTs the stored event, records the
 * attempt, and on failure schedules the next one (or gives up). Any 2xx acknowledges; 410 Gone
 * switches the endpoint off, and so do three days of failures.
 */
export async function handleWebhookMessage(
  env: Env,
  message: WebhookMessage,
  nowMs = Date.now(),
): Promise<void> {
  if (message.not_before > nowMs + 1000) {
    await enqueueDelivery(env, message, nowMs); // a wait longer than one queue delay: chain it
    return;
  }
  const db = database(env.DB);
  const [event] = await db.select().from(events).where(eq(events.id, message.event_id)).limit(1);
  if (!event || (event.deliveryStatus === "delivered" && !message.manual)) return;
  const workspace = await findWorkspace(db, event.workspaceId);
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, event.workspaceId)).limit(1);
  const reason = skipReason(workspace, row && { url: row.webhookUrl, enabled: row.webhookEnabled });
  if (reason !== null || !row?.webhookUrl) {
    await markSkipped(db, event.id, reason ?? "no endpoint was set when the event happened");
    return;
  }
  const result = await post(
    env,
    row.webhookUrl,
    await attemptBody(env, event, nowMs),
    event.id,
    await signingSecrets(env, row, nowMs),
  );
  await db.batch([
    db.insert(webhookAttempts).values({
      id: newId("dlv"),
      eventId: event.id,
      workspaceId: event.workspaceId,
      attempt: message.attempt,
      url: row.webhookUrl,
      responseStatus: result.status,
      latencyMs: result.latencyMs,
      error: result.error,
      createdAt: nowMs,
    }),
    db
      .update(events)
      .set({ deliveryAttempts: sql`${events.deliveryAttempts} + 1` })
      .where(eq(events.id, event.id)),
  ]);
  if (result.status !== null && result.status >= 200 && result.status < 300) {
    await db.batch([
      db
        .update(events)
        .set({
          deliveryStatus: "delivered",
          deliveredAt: nowMs,
          deliveryLastError: null,
          deliveryNextAttemptAt: null,
        })
        .where(eq(events.id, event.id)),
      db.update(workspaces).set({ webhookFailingSince: null }).where(eq(workspaces.id, row.id)),
    ]);
    return;
  }
  const failingSince = row.webhookFailingSince ?? nowMs;
  const scheduleUsedUp = !message.manual && message.attempt >= MAX_ATTEMPTS;
  // The jittered schedule spans 2.8 to 3.5 days: an event that used it all up has failed about three
  // days, so it switches the endpoint off whatever the jitter drew.
  const disable: DisabledReason | null =
    result.status === 410
      ? "gone"
      : nowMs - failingSince >= DISABLE_AFTER_FAILING_MS || scheduleUsedUp
        ? "failing"
        : null;
  await db
    .update(workspaces)
    .set(
      disable
        ? { webhookEnabled: false, webhookDisabledReason: disable, webhookFailingSince: failingSince }
        : { webhookFailingSince: failingSince },
    )
    .where(eq(workspaces.id, row.id));
  const delay = disable ? null : nextDelaySeconds(message.attempt, result.retryAfterSeconds);
  const lastError = result.error ?? `the endpoint answered HTTP ${result.status}`;
  if (delay === null) {
    await db
      .update(events)
      .set({ deliveryStatus: "failed", deliveryLastError: lastError, deliveryNextAttemptAt: null })
      .where(eq(events.id, event.id));
    return;
  }
  const notBefore = nowMs + delay * 1000;
  await db
    .update(events)
    .set({ deliveryStatus: "pending", deliveryLastError: lastError, deliveryNextAttemptAt: notBefore })
    .where(eq(events.id, event.id));
  await enqueueDelivery(
    env,
    { event_id: event.id, attempt: message.attempt + 1, not_before: notBefore },
    nowMs,
  );
}
