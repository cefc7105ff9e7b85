import { createExecutionContext, createMessageBatch, env, getQueueResult, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../edge/index";
import { RESULT_PART_BYTES } from "../../edge/internal/result-upload";
import { MAX_ATTEMPTS } from "../../edge/services/leases";
import {
  api,
  balance,
  claim,
  createJob,
  createWorkspace,
  expectError,
  fixtureBytes,
  fixtureUrl,
  getJob,
  internal,
  type JobAnswer,
  runCron,
  succeed,
  uploadFixture,
} from "./helpers";

const progress = (jobId: string, stage: string, value: number, worker = "w1") =>
  internal(`/jobs/${jobId}/progress`, { worker_id: worker, stage, progress: value });

interface PartAnswer {
  part_number: number;
  size_bytes: number;
  url: string;
  headers: Record<string, string>;
}

interface MultipartAnswer {
  multipart: { upload_id: string; part_size: number; parts: PartAnswer[] };
}

async function multipartTarget(jobId: string, sizeBytes: number): Promise<MultipartAnswer["multipart"]> {
  const response = await internal(`/jobs/${jobId}/result-target`, { worker_id: "w1", size_bytes: sizeBytes });
  return (await response.json<MultipartAnswer>()).multipart;
}

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  // getRandomValues fills at most 64 KiB a call.
  for (let offset = 0; offset < length; offset += 65_536) {
    crypto.getRandomValues(bytes.subarray(offset, offset + 65_536));
  }
  return bytes;
}

const sha256Hex = async (bytes: ArrayBuffer | Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");

async function expireLease(jobId: string): Promise<void> {
  await env.DB.prepare("UPDATE jobs SET lease_expires_at = ? WHERE id = ?")
    .bind(Date.now() - 1000, jobId)
    .run();
}

describe("internal worker API", () => {
  it("refuses a wrong worker secret", async () => {
    await expectError(
      await internal("/jobs/job_x/claim", { worker_id: "w" }, "wrong"),
      401,
      "invalid_api_key",
    );
  });

  it("claim hands the job to one worker, with a working presigned address of the upload", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const upload = await uploadFixture(api_key, "clip.mp4");
    const job = await createJob(api_key, { upload_id: upload.id, texts: ["BUY NOW"] });
    const response = await claim(job.id);
    expect(response.status).toBe(200);
    const claimed = await response.json<{
      source: { type: string; url: string };
      texts: string[];
      attempt: number;
    }>();
    expect(claimed).toMatchObject({ source: { type: "upload" }, texts: ["BUY NOW"], attempt: 1 });
    const download = await SELF.fetch(claimed.source.url);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(await fixtureBytes("clip.mp4"));
    const second = await claim(job.id, "w2");
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { reason: "leased" } });
    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "analyzing",
      stage: "preparing",
      started_at: expect.any(String),
    });
  });

  it("progress moves stage and status, never lowers progress, and tells the worker about a cancel", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    expect(await (await progress(job.id, "reading_text", 0.2)).json()).toMatchObject({ canceled: false });
    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "analyzing",
      stage: "reading_text",
      progress: 0.2,
    });
    await progress(job.id, "cleaning", 0.6);
    await progress(job.id, "cleaning", 0.4);
    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "processing",
      stage: "cleaning",
      progress: 0.6,
    });
    expect((await progress(job.id, "cleaning", 0.7, "intruder")).status).toBe(409);
    await api(`/v1/jobs/${job.id}/cancel`, { method: "POST", key: api_key });
    expect(await (await progress(job.id, "cleaning", 0.8)).json()).toEqual({ canceled: true });
    const late = await internal(`/jobs/${job.id}/complete`, {
      worker_id: "w1",
      outcome: "failed",
      code: "x",
      message: "y",
    });
    expect(await late.json()).toMatchObject({ error: { reason: "canceled" } });
    expect((await balance(api_key)).total).toBe(1000);
  });

  it("a succeeded job shows a result URL valid one hour that downloads the cleaned file; credits stay spent", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    const result = await fixtureBytes("faststart.mp4");
    expect((await succeed(job.id, result)).status).toBe(200);
    const done = await getJob(api_key, job.id);
    const resultUrl = done.result?.url ?? "";
    expect(done).toMatchObject({
      status: "succeeded",
      stage: null,
      progress: 1,
      credits_refunded: false,
      error: null,
    });
    expect(done.result?.size_bytes).toBe(result.length);
    const validFor = Date.parse(done.result?.expires_at as string) - Date.now();
    expect(validFor).toBeGreaterThan(59 * 60_000);
    expect(validFor).toBeLessThanOrEqual(60 * 60_000);
    const download = await SELF.fetch(resultUrl);
    expect(download.headers.get("Content-Disposition")).toContain("clip-clean.mp4");
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(result);
    const ranged = await SELF.fetch(resultUrl, { headers: { Range: "bytes=0-9" } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(10);
    expect((await balance(api_key)).total).toBe(975);
    const tampered = resultUrl.replace("expires=", "expires=9");
    await expectError(await SELF.fetch(tampered), 403, "signature_invalid");
    const events = await env.DB.prepare("SELECT type FROM events WHERE job_id = ?").bind(job.id).all();
    expect(events.results.map((row) => row.type)).toEqual(["job.succeeded"]);
  });

  it("a failed job carries its code and message and gets its credits back once", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    const failed = {
      worker_id: "w1",
      outcome: "failed",
      code: "unreadable_video",
      message: "The file could not be decoded.",
    };
    expect((await internal(`/jobs/${job.id}/complete`, failed)).status).toBe(200);
    expect((await internal(`/jobs/${job.id}/complete`, failed)).status).toBe(409);
    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "failed",
      credits_refunded: true,
      error: { code: "unreadable_video", message: "The file could not be decoded." },
    });
    expect((await balance(api_key)).total).toBe(1000);
  });

  it("cancel racing completion: one wins, credits are refunded at most once, one event", async () => {
    for (const order of ["cancel-first", "complete-first"]) {
      const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
      const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
      await claim(job.id);
      const failed = { worker_id: "w1", outcome: "failed", code: "engine_error", message: "boom" };
      const cancel = () => api(`/v1/jobs/${job.id}/cancel`, { method: "POST", key: api_key });
      const complete = () => internal(`/jobs/${job.id}/complete`, failed);
      await Promise.all(order === "cancel-first" ? [cancel(), complete()] : [complete(), cancel()]);
      const final = await getJob(api_key, job.id);
      expect(["canceled", "failed"]).toContain(final.status);
      expect(final.credits_refunded).toBe(true);
      expect((await balance(api_key)).total).toBe(1000);
      const events = await env.DB.prepare("SELECT type FROM events WHERE job_id = ?").bind(job.id).all();
      expect(events.results).toHaveLength(1);
    }
  });

  it("a workspace never runs more jobs at once than its plan's concurrent_jobs", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 }); // concurrent_jobs 3
    const made: JobAnswer[] = [];
    for (let i = 0; i < 4; i++) made.push(await createJob(api_key, { video_url: fixtureUrl("clip.mp4") }));
    const answers = await Promise.all(made.map((job, i) => claim(job.id, `w${i}`)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 409]);
  });
});

describe("leases: a token per claim, extended only while the job moves", () => {
  const leaseOf = async (jobId: string) =>
    (await env.DB.prepare("SELECT lease_expires_at, progressed_at FROM jobs WHERE id = ?")
      .bind(jobId)
      .first<{ lease_expires_at: number; progressed_at: number }>()) ?? {
      lease_expires_at: 0,
      progressed_at: 0,
    };

  it("a stale worker with the old token cannot report, upload or complete a job claimed again under its own name", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    const first = await (await claim(job.id, "w1")).json<{ lease_token: string }>();
    expect(first.lease_token).toMatch(/^[0-9A-Za-z]{32}$/);
    // The first run stalls; its lease runs out, the job is retried and claimed again, by the same name.
    await expireLease(job.id);
    await runCron();
    const second = await (await claim(job.id, "w1")).json<{ lease_token: string }>();
    expect(second.lease_token).not.toBe(first.lease_token);
    const stale = { worker_id: "w1", lease_token: first.lease_token };
    const refusals = [
      await internal(`/jobs/${job.id}/progress`, { ...stale, stage: "cleaning", progress: 0.5 }),
      await internal(`/jobs/${job.id}/result-target`, { ...stale, size_bytes: 10 }),
      await internal(`/jobs/${job.id}/complete`, { ...stale, outcome: "failed", code: "x", message: "y" }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ error: { reason: "lease_lost" } });
    }
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "analyzing", credits_refunded: false });
    // The current claim's token still works.
    expect((await progress(job.id, "cleaning", 0.5)).status).toBe(200);
    expect((await succeed(job.id, await fixtureBytes("faststart.mp4"))).status).toBe(200);
    expect((await getJob(api_key, job.id)).status).toBe("succeeded");
  });

  it("heartbeats without progress stop extending the lease; the stalled job is retried", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    expect((await progress(job.id, "downloading", 0.02)).status).toBe(200);
    const moved = await leaseOf(job.id);
    expect(moved.lease_expires_at - Date.now()).toBeGreaterThan(50_000);
    // Four and a half minutes without a move (stall limit 300 s): a heartbeat gets 30 s at most.
    const stalledSince = Date.now() - 270_000;
    await env.DB.prepare("UPDATE jobs SET progressed_at = ? WHERE id = ?").bind(stalledSince, job.id).run();
    expect((await progress(job.id, "downloading", 0.02)).status).toBe(200);
    expect((await leaseOf(job.id)).lease_expires_at).toBe(stalledSince + 300_000);
    // Past the stall limit the heartbeat leaves the lease run out, and the next one has lost it.
    await env.DB.prepare("UPDATE jobs SET progressed_at = ? WHERE id = ?")
      .bind(Date.now() - 301_000, job.id)
      .run();
    await progress(job.id, "downloading", 0.02);
    const lost = await progress(job.id, "downloading", 0.02);
    expect(lost.status).toBe(409);
    expect(await lost.json()).toMatchObject({ error: { reason: "lease_lost" } });
    await runCron();
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "queued", stage: "retrying" });
  });

  it("a report that moves the job (higher progress or a new stage) extends the lease again", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    await env.DB.prepare("UPDATE jobs SET progressed_at = ? WHERE id = ?")
      .bind(Date.now() - 290_000, job.id)
      .run();
    const before = Date.now();
    expect((await progress(job.id, "reading_text", 0.1)).status).toBe(200);
    const after = await leaseOf(job.id);
    expect(after.progressed_at).toBeGreaterThanOrEqual(before);
    expect(after.lease_expires_at - before).toBeGreaterThanOrEqual(60_000);
  });
});

describe("multipart results (threshold 1 MB in the test config)", () => {
  it("a large result goes up in signed parts, is completed, and downloads byte for byte", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    const result = randomBytes(RESULT_PART_BYTES + 1_048_583);
    const multipart = await multipartTarget(job.id, result.length);
    expect(multipart.part_size).toBe(RESULT_PART_BYTES);
    expect(multipart.parts.map((part) => [part.part_number, part.size_bytes])).toEqual([
      [1, RESULT_PART_BYTES],
      [2, 1_048_583],
    ]);
    const last = multipart.parts[1] as PartAnswer;
    const lastBytes = result.subarray(RESULT_PART_BYTES);
    const otherPart = new URL(last.url);
    otherPart.searchParams.set("part", "1");
    await expectError(
      await SELF.fetch(otherPart, { method: "PUT", headers: last.headers, body: lastBytes }),
      403,
      "signature_invalid",
    );
    const short = await SELF.fetch(last.url, {
      method: "PUT",
      headers: last.headers,
      body: lastBytes.subarray(1),
    });
    expect((await expectError(short, 400, "invalid_parameter")).error.param).toBe("Content-Length");
    const uploaded = [];
    for (const part of multipart.parts) {
      const start = (part.part_number - 1) * multipart.part_size;
      const body = result.subarray(start, start + part.size_bytes);
      const put = await SELF.fetch(part.url, { method: "PUT", headers: part.headers, body });
      expect(put.status).toBe(200);
      uploaded.push({ part_number: part.part_number, etag: put.headers.get("ETag") });
    }
    const completion = { upload_id: multipart.upload_id, parts: uploaded };
    const intruder = await internal(`/jobs/${job.id}/result-complete`, { worker_id: "w2", ...completion });
    expect(await intruder.json()).toMatchObject({ error: { reason: "lease_lost" } });
    expect(
      (await internal(`/jobs/${job.id}/result-complete`, { worker_id: "w1", ...completion })).status,
    ).toBe(200);
    const complete = await internal(`/jobs/${job.id}/complete`, {
      worker_id: "w1",
      outcome: "succeeded",
      result_size_bytes: result.length,
    });
    expect(complete.status).toBe(200);
    const done = await getJob(api_key, job.id);
    expect(done).toMatchObject({ status: "succeeded", result: { size_bytes: result.length } });
    const download = await SELF.fetch(done.result?.url ?? "");
    expect(await sha256Hex(await download.arrayBuffer())).toBe(await sha256Hex(result));
  });

  it("result-abort drops the parts: no object is stored and the job cannot complete with it", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    await claim(job.id);
    const result = randomBytes(2_000_000);
    const multipart = await multipartTarget(job.id, result.length);
    const only = multipart.parts[0] as PartAnswer;
    const put = await SELF.fetch(only.url, { method: "PUT", headers: only.headers, body: result });
    const parts = [{ part_number: 1, etag: put.headers.get("ETag") }];
    const abort = await internal(`/jobs/${job.id}/result-abort`, {
      worker_id: "w1",
      upload_id: multipart.upload_id,
    });
    expect(abort.status).toBe(200);
    const late = await internal(`/jobs/${job.id}/result-complete`, {
      worker_id: "w1",
      upload_id: multipart.upload_id,
      parts,
    });
    expect(late.ok).toBe(false);
    expect(await env.BUCKET.head(`results/${workspace_id}/${job.id}.mp4`)).toBeNull();
    const complete = await internal(`/jobs/${job.id}/complete`, {
      worker_id: "w1",
      outcome: "succeeded",
      result_size_bytes: result.length,
    });
    expect((await expectError(complete, 400, "invalid_parameter")).error.param).toBe("result_size_bytes");
  });
});

describe("reaper and dead letters", () => {
  it("a job whose lease expired is retried (stage retrying), and fails refunded after the last attempt", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect((await claim(job.id, `w${attempt}`)).status).toBe(200);
      await expireLease(job.id);
      await runCron();
      const after = await getJob(api_key, job.id);
      if (attempt < MAX_ATTEMPTS) {
        expect(after).toMatchObject({ status: "queued", stage: "retrying" });
        expect((await balance(api_key)).total).toBe(975);
      } else {
        expect(after).toMatchObject({
          status: "failed",
          credits_refunded: true,
          error: { code: "worker_lost" },
        });
        expect((await balance(api_key)).total).toBe(1000);
      }
    }
  });

  it("a dead-lettered message fails its job and refunds it", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    const batch = createMessageBatch("adclean-jobs-dlq", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { job_id: job.id, workspace_id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "failed",
      error: { code: "dispatch_failed" },
    });
    expect((await balance(api_key)).total).toBe(1000);
  });
});
