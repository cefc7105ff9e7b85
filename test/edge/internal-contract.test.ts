// The edge's side of the edge-worker contract (contract/, issue 26): a body or message that breaks
// it is refused with an answer naming the field, and the job stays as it was.
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../edge/index";
import { claim, createJob, createWorkspace, expectError, fixtureUrl, getJob, internal } from "./helpers";

describe("the internal API refuses bodies that break the contract", () => {
  it("claim, progress and complete answer 400 naming the field; the job does not move", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });

    const nameless = await expectError(
      await internal(`/jobs/${job.id}/claim`, { worker: "w1" }),
      400,
      "invalid_parameter",
    );
    expect(nameless.error.param).toBe("worker_id");
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "queued" });

    expect((await claim(job.id)).status).toBe(200);
    // A stage the API lists but no worker reports (it has no time of its own): not the contract's.
    const masking = await internal(`/jobs/${job.id}/progress`, {
      worker_id: "w1",
      stage: "masking",
      progress: 0.3,
    });
    expect((await expectError(masking, 400, "invalid_parameter")).error.param).toBe("stage");
    const tooFar = await internal(`/jobs/${job.id}/progress`, {
      worker_id: "w1",
      stage: "cleaning",
      progress: 2,
    });
    expect((await expectError(tooFar, 400, "invalid_parameter")).error.param).toBe("progress");
    const unknownOutcome = await internal(`/jobs/${job.id}/complete`, { worker_id: "w1", outcome: "done" });
    expect((await expectError(unknownOutcome, 400, "invalid_parameter")).error.param).toBe("outcome");
    const failureWithoutCode = await internal(`/jobs/${job.id}/complete`, {
      worker_id: "w1",
      outcome: "failed",
      message: "x",
    });
    expect((await expectError(failureWithoutCode, 400, "invalid_parameter")).error.param).toBe("code");

    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "analyzing",
      stage: "preparing",
      progress: 0,
    });
  });

  it("a dead-lettered message that is no job message is dropped and fails no job", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4") });
    const batch = createMessageBatch("adclean-jobs-dlq", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { job: job.id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m1"]);
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "queued" });
  });
});
