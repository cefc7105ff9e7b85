import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../edge/env";
import worker from "../../edge/index";
import { handleWebhookMessage, type WebhookMessage } from "../../edge/webhooks/delivery";
import { publishEvent } from "../../edge/webhooks/publish";
import { RETRY_DELAYS_SECONDS } from "../../edge/webhooks/schedule";
import { signatureHeader, verifyWebhook, WebhookVerificationError } from "../../edge/webhooks/signature";
import {
  api,
  claim,
  createJob,
  createWorkspace,
  expectError,
  fixtureBytes,
  fixtureUrl,
  internal,
  postJson,
  runCron,
  succeed,
} from "./helpers";

const hookUrl = (mode: string, id: string) => fixtureUrl(id, `hook/${mode}`);

interface Received {
  headers: Record<string, string>;
  body: string;
}

async function received(id: string): Promise<Received[]> {
  return (await fetch(fixtureUrl(id, "hook-log"))).json();
}

/** Records what the delivery code puts on the webhooks queue instead of letting the queue run it. */
function recordingEnv() {
  const sent: Array<{ body: WebhookMessage; delaySeconds: number }> = [];
  const queue = {
    send: async (body: WebhookMessage, options?: { delaySeconds?: number }) => {
      sent.push({ body, delaySeconds: options?.delaySeconds ?? 0 });
    },
  };
  return { env: { ...env, WEBHOOKS_QUEUE: queue } as unknown as Env, sent };
}

async function workspaceWithHook(mode: string, id: string) {
  return pointHook(await createWorkspace({ plan: "growth", credits: 1000 }), mode, id);
}

async function pointHook<T extends { api_key: string }>(workspace: T, mode: string, id: string): Promise<T> {
  const response = await api("/v1/webhook_endpoint", {
    method: "PUT",
    key: workspace.api_key,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ url: hookUrl(mode, id) }),
  });
  expect(response.status).toBe(200);
  return workspace;
}

/**
 * A workspace with a stored event to deliver by hand: the webhook.test event is made before the
 * endpoint is set, so the real queue never sends it and only the test's attempts reach the receiver.
 */
async function workspaceWithEvent(mode: string, id: string) {
  const workspace = await createWorkspace({ plan: "growth", credits: 1000 });
  const answer = await api("/v1/webhook_endpoint/test", { method: "POST", key: workspace.api_key });
  const eventId = (await answer.json<{ id: string }>()).id;
  return { ...(await pointHook(workspace, mode, id)), eventId };
}

async function attempts(key: string, eventId: string) {
  const answer = await api(`/v1/events/${eventId}/deliveries`, { key });
  return (
    await answer.json<{
      data: Array<{ attempt: number; response_status: number | null; error: string | null }>;
    }>()
  ).data;
}

describe("webhook signatures", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const body = JSON.stringify({ id: "evt_1", type: "job.succeeded" });

  it("verifies with the documented secret and fails on one changed byte, an old timestamp or another secret", async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = await signatureHeader([secret], body, now);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    await verifyWebhook({ payload: body, header, secret });
    await expect(verifyWebhook({ payload: body.replace("1", "2"), header, secret })).rejects.toThrow(
      WebhookVerificationError,
    );
    await expect(verifyWebhook({ payload: body, header, secret: `${secret}x` })).rejects.toThrow(
      WebhookVerificationError,
    );
    const old = await signatureHeader([secret], body, now - 301);
    await expect(verifyWebhook({ payload: body, header: old, secret })).rejects.toThrow(/tolerance/);
    await expect(verifyWebhook({ payload: body, header: "v1=abc", secret })).rejects.toThrow(/malformed/);
  });

  it("matches the spec's formula: hex HMAC-SHA256 of `<t>.<body>` keyed with the secret", async () => {
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`1700000000.${body}`));
    const hex = [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(await signatureHeader([secret], body, 1700000000)).toBe(`t=1700000000,v1=${hex}`);
  });
});

describe("webhook endpoint management", () => {
  it("sets, reads and rotates the endpoint; the secret shows only when set or rotated", async () => {
    const { api_key, signing_secret } = await createWorkspace({ plan: "growth" });
    const empty = await (await api("/v1/webhook_endpoint", { key: api_key })).json();
    expect(empty).toMatchObject({ object: "webhook_endpoint", url: null, enabled: false });
    const set = await api("/v1/webhook_endpoint", {
      method: "PUT",
      key: api_key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ url: hookUrl("ok", "mgmt") }),
    });
    expect(await set.json()).toMatchObject({ url: hookUrl("ok", "mgmt"), enabled: true, signing_secret });
    const read = await (await api("/v1/webhook_endpoint", { key: api_key })).json<Record<string, unknown>>();
    expect(read.signing_secret).toBeUndefined();
    expect(read.signing_secret_prefix).toBe(`${signing_secret.slice(0, 10)}…`);
    const rotated = await postJson("/v1/webhook_endpoint/rotate_secret", api_key, { overlap_seconds: 3600 });
    const body = await rotated.json<{ signing_secret: string; previous_secret_expires_at: string }>();
    expect(body.signing_secret).toMatch(/^whsec_/);
    expect(body.signing_secret).not.toBe(signing_secret);
    expect(Date.parse(body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3500_000);
  });

  it("refuses addresses the policy forbids, and plans without webhooks", async () => {
    const { api_key } = await createWorkspace({ plan: "growth" });
    for (const url of [
      "http://169.254.169.254/hook",
      "http://10.1.2.3/hook",
      "ftp://127.0.0.1/hook",
      "http://2852039166/hook",
      "http://[::ffff:a9fe:a9fe]/hook",
      "http://100.64.0.1/hook",
    ]) {
      const answer = await api("/v1/webhook_endpoint", {
        method: "PUT",
        key: api_key,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ url }),
      });
      expect((await expectError(answer, 422, "url_not_allowed")).error.param).toBe("url");
    }
    const starter = await createWorkspace({ plan: "starter" });
    await expectError(await api("/v1/webhook_endpoint", { key: starter.api_key }), 403, "plan_required");
    const none = await createWorkspace({ plan: "none" });
    await expectError(await api("/v1/events", { key: none.api_key }), 403, "plan_required");
  });
});

describe("webhook delivery", () => {
  it("a receiver answering 500 twice then 200 gets three attempts and one success, retried on schedule", async () => {
    const { api_key, eventId } = await workspaceWithEvent("flaky", "flaky-1");
    const { env: recording, sent } = recordingEnv();
    let now = Date.now();
    await handleWebhookMessage(recording, { event_id: eventId, attempt: 1, not_before: now }, now);
    expect(sent[0]?.body.attempt).toBe(2);
    expect(sent[0]?.delaySeconds).toBeGreaterThanOrEqual(4);
    expect(sent[0]?.delaySeconds).toBeLessThanOrEqual(6);
    now = sent[0]?.body.not_before as number;
    await handleWebhookMessage(recording, sent[0]?.body as WebhookMessage, now);
    expect(sent[1]?.delaySeconds).toBeGreaterThanOrEqual(270);
    expect(sent[1]?.delaySeconds).toBeLessThanOrEqual(330);
    now = sent[1]?.body.not_before as number;
    await handleWebhookMessage(recording, sent[1]?.body as WebhookMessage, now);
    expect(sent).toHaveLength(2);
    expect((await attempts(api_key, eventId)).map((a) => a.response_status)).toEqual([500, 500, 200]);
    const events = await (await api("/v1/events", { key: api_key })).json<{
      data: Array<{ id: string; delivery: { status: string } }>;
    }>();
    expect(events.data.find((e) => e.id === eventId)?.delivery.status).toBe("delivered");
  });

  it("says why a delivery is not done and when the next attempt is due; a skipped one says why", async () => {
    const { api_key, eventId } = await workspaceWithEvent("fail", "reason-1");
    const delivery = async () =>
      (
        await (
          await api("/v1/events", { key: api_key })
        ).json<{
          data: Array<{ id: string; delivery: Record<string, unknown> }>;
        }>()
      ).data.find((e) => e.id === eventId)?.delivery;
    // Made before the endpoint was set: skipped, with the reason.
    expect(await delivery()).toMatchObject({
      status: "skipped",
      last_error: "no endpoint was set when the event happened",
      next_attempt_at: null,
    });
    const { env: recording, sent } = recordingEnv();
    const now = Date.now();
    await handleWebhookMessage(recording, { event_id: eventId, attempt: 1, not_before: now }, now);
    expect(await delivery()).toMatchObject({
      status: "pending",
      attempts: 1,
      last_error: "the endpoint answered HTTP 500",
      next_attempt_at: new Date(sent[0]?.body.not_before as number).toISOString(),
    });
  });

  it("a receiver that never answers is retried on the whole schedule, every attempt recorded, then given up", async () => {
    const { api_key, eventId } = await workspaceWithEvent("hang", "hang-1");
    const { env: recording, sent } = recordingEnv();
    let message: WebhookMessage = { event_id: eventId, attempt: 1, not_before: Date.now() };
    const delays: number[] = [];
    for (let attempt = 1; attempt <= RETRY_DELAYS_SECONDS.length + 1; attempt++) {
      const before = sent.length;
      await handleWebhookMessage(recording, message, message.not_before);
      const next = sent[before];
      if (!next) break;
      delays.push(Math.round((next.body.not_before - message.not_before) / 1000));
      // Queue delays stop at 12 h: a longer wait goes on the queue for 12 h and is chained on arrival.
      expect(next.delaySeconds).toBeLessThanOrEqual(12 * 3600);
      message = next.body;
    }
    // All nine retries happened, each on its delay: a schedule cut short must fail here.
    expect(delays).toHaveLength(RETRY_DELAYS_SECONDS.length);
    RETRY_DELAYS_SECONDS.forEach((base, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
      expect(delays[i]).toBeLessThanOrEqual(Math.ceil(base * 1.1));
    });
    const log = await attempts(api_key, eventId);
    expect(log.length).toBe(RETRY_DELAYS_SECONDS.length + 1);
    expect(log.every((a) => a.response_status === null && a.error?.includes("timed out"))).toBe(true);
    // Three days of failures switch the endpoint off.
    const endpoint = await (await api("/v1/webhook_endpoint", { key: api_key })).json();
    expect(endpoint).toMatchObject({ enabled: false, disabled_reason: "failing" });
  });

  it("three days of failures over several events switch the endpoint off before any schedule ends", async () => {
    const { api_key, eventId } = await workspaceWithEvent("fail", "fail-1");
    const { env: recording, sent } = recordingEnv();
    const start = Date.now();
    await handleWebhookMessage(recording, { event_id: eventId, attempt: 1, not_before: start }, start);
    const endpoint = () => api("/v1/webhook_endpoint", { key: api_key }).then((r) => r.json());
    expect(await endpoint()).toMatchObject({ enabled: true, disabled_reason: null });
    // A later event's second attempt, just over three days after the first failure.
    const later = await (await api("/v1/webhook_endpoint/test", { method: "POST", key: api_key })).json<{
      id: string;
    }>();
    const threeDaysOn = start + 3 * 24 * 3600_000 + 1000;
    await handleWebhookMessage(
      recording,
      { event_id: later.id, attempt: 2, not_before: threeDaysOn },
      threeDaysOn,
    );
    expect(await endpoint()).toMatchObject({ enabled: false, disabled_reason: "failing" });
    expect(sent.map((s) => s.body.event_id)).toEqual([eventId]); // the later event is given up, not retried
  });

  it("chains a wait longer than a queue delay", async () => {
    const { eventId } = await workspaceWithEvent("ok", "chain-1");
    const { env: recording, sent } = recordingEnv();
    const now = Date.now();
    const far = { event_id: eventId, attempt: 8, not_before: now + 20 * 3600_000 };
    await handleWebhookMessage(recording, far, now);
    expect(sent[0]).toEqual({ body: far, delaySeconds: 12 * 3600 });
    expect(await received("chain-1")).toHaveLength(0);
  });

  it("honours Retry-After on 429, treats a redirect as a failure, and switches the endpoint off on 410", async () => {
    const busy = await workspaceWithEvent("busy", "busy-1");
    const { env: recording, sent } = recordingEnv();
    const now = Date.now();
    await handleWebhookMessage(recording, { event_id: busy.eventId, attempt: 1, not_before: now }, now);
    expect(sent[0]?.body.not_before).toBeGreaterThanOrEqual(now + 7200_000);

    const moved = await workspaceWithEvent("redirect", "redirect-1");
    const movedEvent = moved.eventId;
    await handleWebhookMessage(recording, { event_id: movedEvent, attempt: 1, not_before: now }, now);
    expect((await attempts(moved.api_key, movedEvent))[0]).toMatchObject({
      response_status: 302,
      error: expect.stringMatching(/redirect/),
    });
    expect(await received("redirect-1-redirected")).toHaveLength(0);

    const gone = await workspaceWithEvent("gone", "gone-1");
    const goneEvent = gone.eventId;
    const count = sent.length;
    await handleWebhookMessage(recording, { event_id: goneEvent, attempt: 1, not_before: now }, now);
    expect(sent).toHaveLength(count);
    const endpoint = await (await api("/v1/webhook_endpoint", { key: gone.api_key })).json();
    expect(endpoint).toMatchObject({ enabled: false, disabled_reason: "gone" });
  });

  it("during a rotation's overlap a delivery carries two v1 signatures, one per secret", async () => {
    const { api_key, signing_secret, eventId } = await workspaceWithEvent("ok", "rotate-1");
    const rotated = await (await postJson("/v1/webhook_endpoint/rotate_secret", api_key, {})).json<{
      signing_secret: string;
    }>();
    const { env: recording } = recordingEnv();
    await handleWebhookMessage(recording, { event_id: eventId, attempt: 1, not_before: Date.now() });
    const [delivery] = (await received("rotate-1")).filter((r) => r.headers["service-event-id"] === eventId);
    const header = delivery?.headers["service-signature"] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    await verifyWebhook({ payload: delivery?.body as string, header, secret: rotated.signing_secret });
    await verifyWebhook({ payload: delivery?.body as string, header, secret: signing_secret });
  });

  it("webhook.test and job.canceled arrive signed through the real queue", async () => {
    const { api_key, signing_secret } = await workspaceWithHook("ok", "real-1");
    const test = await api("/v1/webhook_endpoint/test", { method: "POST", key: api_key });
    expect(test.status).toBe(202);
    const testEvent = await test.json<{ id: string; type: string }>();
    expect(testEvent.type).toBe("webhook.test");
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await api(`/v1/jobs/${job.id}/cancel`, { method: "POST", key: api_key });
    let got: Received[] = [];
    for (let i = 0; i < 50 && got.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      got = await received("real-1");
    }
    const types = got.map((r) => JSON.parse(r.body).type).sort();
    expect(types).toEqual(["job.canceled", "webhook.test"]);
    for (const delivery of got) {
      await verifyWebhook({
        payload: delivery.body,
        header: delivery.headers["service-signature"],
        secret: signing_secret,
      });
      expect(delivery.headers["service-event-id"]).toBe(JSON.parse(delivery.body).id);
    }
    const canceled = JSON.parse(got.find((r) => r.body.includes("job.canceled"))?.body as string);
    expect(canceled.data.object).toMatchObject({ id: job.id, status: "canceled", credits_refunded: true });
  });

  it("job.failed arrives signed through the real queue when a worker reports the job failed, refunded", async () => {
    const { api_key, signing_secret } = await workspaceWithHook("ok", "failed-1");
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    expect((await claim(job.id)).status).toBe(200);
    const failure = { worker_id: "w1", outcome: "failed", code: "unreadable_video", message: "bad frames" };
    expect((await internal(`/jobs/${job.id}/complete`, failure)).status).toBe(200);
    let got: Received[] = [];
    for (let i = 0; i < 50 && got.length < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      got = await received("failed-1");
    }
    expect(got).toHaveLength(1);
    const [delivery] = got as [Received];
    await verifyWebhook({
      payload: delivery.body,
      header: delivery.headers["service-signature"] as string,
      secret: signing_secret,
    });
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({
      object: "event",
      type: "job.failed",
      id: delivery.headers["service-event-id"],
    });
    expect(event.data.object).toMatchObject({
      id: job.id,
      status: "failed",
      credits_refunded: true,
      error: { code: "unreadable_video" },
    });
    const listed = await (await api("/v1/events", { key: api_key })).json<{
      data: Array<{ id: string; type: string }>;
    }>();
    expect(listed.data.find((listedEvent) => listedEvent.id === event.id)?.type).toBe("job.failed");
  });

  it("a 2xx other than 200 (here 202) acknowledges a delivery: delivered, not retried", async () => {
    const { api_key, eventId } = await workspaceWithEvent("accepted", "accepted-1");
    const { env: recording, sent } = recordingEnv();
    await handleWebhookMessage(
      recording,
      { event_id: eventId, attempt: 1, not_before: Date.now() },
      Date.now(),
    );
    expect(sent).toEqual([]);
    expect((await attempts(api_key, eventId)).map((a) => a.response_status)).toEqual([202]);
    const events = await (await api("/v1/events", { key: api_key })).json<{
      data: Array<{ id: string; delivery: { status: string } }>;
    }>();
    expect(events.data.find((e) => e.id === eventId)?.delivery.status).toBe("delivered");
  });

  it("redelivers an event on request (here one made before the endpoint was set)", async () => {
    const { api_key, eventId } = await workspaceWithEvent("ok", "redeliver-1");
    const again = await api(`/v1/events/${eventId}/redeliver`, { method: "POST", key: api_key });
    expect(again.status).toBe(202);
    let log: Received[] = [];
    for (let i = 0; i < 50 && log.length < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      log = await received("redeliver-1");
    }
    expect(log.filter((r) => r.headers["service-event-id"] === eventId).length).toBe(1);
    await expectError(
      await api("/v1/events/evt_nope/redeliver", { method: "POST", key: api_key }),
      404,
      "resource_not_found",
    );
  });
});

describe("webhook events that never went out (issue 23, item 9)", () => {
  const deliveryOf = (eventId: string) =>
    env.DB.prepare("SELECT delivery_status, next_attempt_at FROM events WHERE id = ?")
      .bind(eventId)
      .first<{ delivery_status: string; next_attempt_at: number | null }>();

  it("an event whose queue send failed stays pending, and the scheduled sweep sends it, once", async () => {
    const { api_key, workspace_id, eventId } = await workspaceWithEvent("ok", "sweep-1");
    await env.DB.prepare("UPDATE events SET delivery_status = 'pending', next_attempt_at = NULL WHERE id = ?")
      .bind(eventId)
      .run();
    const failingQueue = {
      send: async () => {
        throw new Error("queue unavailable");
      },
    };
    await publishEvent({ ...env, WEBHOOKS_QUEUE: failingQueue } as unknown as Env, eventId, workspace_id);
    expect(await deliveryOf(eventId)).toEqual({ delivery_status: "pending", next_attempt_at: null });
    // Two minutes later the cron's sweep finds it.
    await env.DB.prepare("UPDATE events SET created_at = ? WHERE id = ?")
      .bind(Date.now() - 120_000, eventId)
      .run();
    await runCron();
    await runCron();
    let log: Received[] = [];
    for (let i = 0; i < 50 && log.length < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      log = await received("sweep-1");
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await received("sweep-1")).filter((r) => r.headers["service-event-id"] === eventId)).toHaveLength(
      1,
    );
    expect((await deliveryOf(eventId))?.delivery_status).toBe("delivered");
    expect((await attempts(api_key, eventId)).map((attempt) => attempt.response_status)).toEqual([200]);
  });

  it("a late retry of job.succeeded carries a result URL valid one hour from that attempt", async () => {
    const workspace = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(workspace.api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    expect((await succeed(job.id, await fixtureBytes("faststart.mp4"))).status).toBe(200);
    // The endpoint comes after the job ended, so only the test's attempt reaches the receiver.
    await pointHook(workspace, "ok", "fresh-1");
    const event = await env.DB.prepare("SELECT id FROM events WHERE job_id = ? AND type = 'job.succeeded'")
      .bind(job.id)
      .first<{ id: string }>();
    const eventId = event?.id ?? "";
    await env.DB.prepare("UPDATE events SET delivery_status = 'pending' WHERE id = ?").bind(eventId).run();
    // Attempt 5 of the schedule: about 2.5 hours after the job ended.
    const later = Date.now() + 2.5 * 60 * 60 * 1000;
    await handleWebhookMessage(
      recordingEnv().env,
      { event_id: eventId, attempt: 5, not_before: later },
      later,
    );
    const [delivery] = await received("fresh-1");
    const { result } = JSON.parse(delivery?.body ?? "{}").data.object;
    expect(Date.parse(result.expires_at)).toBeGreaterThanOrEqual(later + 59 * 60_000);
    expect(result.url).toEqual(expect.stringContaining(job.id));
  });

  it("an attempt the queue gave up on is dead-lettered: its event is marked failed", async () => {
    const { eventId } = await workspaceWithEvent("ok", "dlq-1");
    await env.DB.prepare("UPDATE events SET delivery_status = 'pending' WHERE id = ?").bind(eventId).run();
    const batch = createMessageBatch<WebhookMessage>("adclean-webhooks-dlq", [
      {
        id: "m1",
        timestamp: new Date(),
        attempts: 6,
        body: { event_id: eventId, attempt: 1, not_before: 0 },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m1"]);
    expect((await deliveryOf(eventId))?.delivery_status).toBe("failed");
    expect(await received("dlq-1")).toEqual([]);
  });
});
