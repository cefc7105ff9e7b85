import { createExecutionContext, createMessageBatch, env, getQueueResult, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JobMessage } from "../../contract/job-message";
import worker from "../../edge/index";
import { dispatchJob } from "../../edge/queues/job-dispatch";
import { JobIntake } from "../../gpu-worker/intake";
import {
  admin,
  balance,
  createJob,
  createWorkspace,
  expectError,
  fixtureUrl,
  getJob,
  internal,
  runCron,
} from "./helpers";

const GPU_WORKER_URL = "http://gpu-worker.test";

/** Delivers one jobs-queue message to the Worker's queue handler and returns what it did with it. */
async function deliver(body: JobMessage, id: string, testEnv: typeof env = env) {
  const batch = createMessageBatch<JobMessage>("adclean-jobs", [
    { id, timestamp: new Date(), attempts: 1, body },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...testEnv, GPU_WORKER_URL });
  return getQueueResult(batch, ctx);
}

/** Stands in for the GPU worker's POST /jobs: the handler's fetch goes to this function. */
function workerAnswers(answer: (body: JobMessage) => Promise<Response>): void {
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(GPU_WORKER_URL)) throw new Error(`unexpected fetch ${url}`);
    return answer(JSON.parse(String(init?.body)) as JobMessage);
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the local jobs queue consumer", () => {
  it("a busy worker does not use up the message's retries: the job is sent again as a fresh message", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    workerAnswers(async () => Response.json({ busy: "workspace_busy" }, { status: 503 }));
    const sent: { body: unknown; options: unknown }[] = [];
    const recordingQueue = {
      send: async (body: unknown, options: unknown) => {
        sent.push({ body, options });
      },
    } as unknown as Queue;
    // However many busy answers, none is a retry: the queue's dead-letter counter never moves.
    for (let offer = 1; offer <= 3; offer++) {
      const result = await deliver({ job_id: job.id, workspace_id }, `m${offer}`, {
        ...env,
        JOBS_QUEUE: recordingQueue,
      });
      expect(result.retryMessages).toEqual([]);
      expect(result.explicitAcks).toEqual([`m${offer}`]);
    }
    expect(sent).toHaveLength(3);
    expect(sent[0]).toEqual({
      body: { job_id: job.id, workspace_id },
      options: { contentType: "json", delaySeconds: 5 },
    });
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "queued", credits_refunded: false });
  });

  it("when the fresh message cannot be sent, the old one is retried instead of lost", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    workerAnswers(async () => new Response(null, { status: 503 }));
    const failingQueue = {
      send: async () => {
        throw new Error("queue unavailable");
      },
    } as unknown as Queue;
    const result = await deliver({ job_id: job.id, workspace_id }, "m1", {
      ...env,
      JOBS_QUEUE: failingQueue,
    });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toMatchObject([{ msgId: "m1" }]);
  });

  it("a message delivered twice runs the job once and charges it once", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    const charged = 1000 - (await balance(api_key)).total;
    const runs: string[] = [];
    // The GPU worker's real intake, claiming through the edge's internal API.
    const intake = new JobIntake(
      2,
      {
        claim: async (jobId: string) => {
          const response = await internal(`/jobs/${jobId}/claim`, { worker_id: "w1" });
          if (response.ok) return { claimed: await response.json() };
          return { refused: (await response.json<{ error: { reason: string } }>()).error.reason };
        },
      } as never,
      async (claimed) => {
        runs.push((claimed as { id: string }).id);
      },
    );
    workerAnswers(async (body) => {
      const answer = await intake.offer(body.job_id);
      return Response.json(answer.body, { status: answer.status });
    });
    const message = { job_id: job.id, workspace_id };
    const first = await deliver(message, "m1");
    const second = await deliver(message, "m1");
    expect(first.explicitAcks).toEqual(["m1"]);
    expect(second.explicitAcks).toEqual(["m1"]);
    expect(runs).toEqual([job.id]);
    expect(charged).toBeGreaterThan(0);
    expect((await balance(api_key)).total).toBe(1000 - charged);
  });
});

describe("waiting jobs cost one message each (the reaper resends only failed sends)", () => {
  const sentFor = (send: { mock: { calls: unknown[][] } }, jobId: string) =>
    send.mock.calls.filter(([body]) => (body as JobMessage).job_id === jobId).length;

  it("a job that has waited in the queue for hours gets no second message from the reaper", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    // Every worker busy for three hours: nothing touched the job since its message was sent.
    await env.DB.prepare("UPDATE jobs SET updated_at = ? WHERE id = ?")
      .bind(Date.now() - 3 * 60 * 60 * 1000, job.id)
      .run();
    const send = vi.spyOn(env.JOBS_QUEUE, "send");
    for (let sweep = 0; sweep < 3; sweep++) await runCron();
    expect(sentFor(send, job.id)).toBe(0);
    expect((await getJob(api_key, job.id)).status).toBe("queued");
  });

  it("a job whose queue send failed is marked and sent again by the next sweep, once", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    const failingQueue = {
      send: async () => {
        throw new Error("queue unavailable");
      },
    } as unknown as Queue;
    await dispatchJob({ ...env, JOBS_QUEUE: failingQueue }, { job_id: job.id, workspace_id });
    const row = await env.DB.prepare("SELECT dispatch_pending FROM jobs WHERE id = ?")
      .bind(job.id)
      .first<{ dispatch_pending: number }>();
    expect(row?.dispatch_pending).toBe(1);
    const send = vi.spyOn(env.JOBS_QUEUE, "send");
    await runCron();
    await runCron();
    expect(sentFor(send, job.id)).toBe(1);
    expect(send.mock.calls[0]?.[0]).toEqual({ job_id: job.id, workspace_id });
  });
});

describe("a restart that lost the local queue", () => {
  it("npm start's redispatch sends every queued job again at once, each once, and no running job", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const queued = [
      await createJob(api_key, { video_url: fixtureUrl("clip.mp4") }),
      await createJob(api_key, { video_url: fixtureUrl("clip.mp4") }),
    ];
    const running = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    expect((await internal(`/jobs/${running.id}/claim`, { worker_id: "w1" })).status).toBe(200);
    const send = vi.spyOn(env.JOBS_QUEUE, "send");
    const first = await (await admin("/jobs/redispatch", "POST")).json<{ redispatched: number }>();
    const sentIds = send.mock.calls.map(([body]) => (body as JobMessage).job_id);
    for (const job of queued) expect(sentIds.filter((id) => id === job.id)).toHaveLength(1);
    expect(sentIds).not.toContain(running.id);
    expect(first.redispatched).toBe(sentIds.length);
  });
});

describe("the result cannot be stored (R2 write failure)", () => {
  it("a completion without a stored result is refused; the worker's failure refunds once", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    expect((await internal(`/jobs/${job.id}/claim`, { worker_id: "w1" })).status).toBe(200);
    const target = await internal(`/jobs/${job.id}/result-target`, { worker_id: "w1", size_bytes: 1234 });
    expect(target.status).toBe(200);
    // The PUT failed, so nothing is stored: claiming success must not turn the job succeeded.
    const claimedSuccess = await internal(`/jobs/${job.id}/complete`, {
      worker_id: "w1",
      outcome: "succeeded",
      result_size_bytes: 1234,
    });
    await expectError(claimedSuccess, 400, "invalid_parameter");
    expect((await getJob(api_key, job.id)).status).not.toBe("succeeded");
    const failure = {
      worker_id: "w1",
      outcome: "failed",
      code: "processing_failed",
      message: "upload failed",
    };
    expect((await internal(`/jobs/${job.id}/complete`, failure)).status).toBe(200);
    expect((await internal(`/jobs/${job.id}/complete`, failure)).status).toBe(409);
    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "failed",
      credits_refunded: true,
      result: null,
      error: { code: "processing_failed" },
    });
    expect((await balance(api_key)).total).toBe(1000);
  });

  it("a worker that dies after a failed upload leaves the job to the reaper: retried, then charged once", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    const charged = 1000 - (await balance(api_key)).total;
    expect((await internal(`/jobs/${job.id}/claim`, { worker_id: "w1" })).status).toBe(200);
    await internal(`/jobs/${job.id}/result-target`, { worker_id: "w1", size_bytes: 10 });
    await env.DB.prepare("UPDATE jobs SET lease_expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, job.id)
      .run();
    await runCron();
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "queued", stage: "retrying" });
    expect((await internal(`/jobs/${job.id}/claim`, { worker_id: "w2" })).status).toBe(200);
    const bytes = new Uint8Array(10).fill(7);
    const target = await (
      await internal(`/jobs/${job.id}/result-target`, { worker_id: "w2", size_bytes: bytes.length })
    ).json<{ url: string; headers: Record<string, string> }>();
    expect(
      (await SELF.fetch(target.url, { method: "PUT", headers: target.headers, body: bytes })).status,
    ).toBe(200);
    const done = await internal(`/jobs/${job.id}/complete`, {
      worker_id: "w2",
      outcome: "succeeded",
      result_size_bytes: bytes.length,
    });
    expect(done.status).toBe(200);
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "succeeded", credits_refunded: false });
    expect((await balance(api_key)).total).toBe(1000 - charged);
  });
});
