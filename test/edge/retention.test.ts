import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  claim,
  createJob,
  createWorkspace,
  expectError,
  getJob,
  internal,
  postJson,
  runCron,
  succeed,
  uploadFixture,
} from "./helpers";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Fires the scheduled handler as if the clock read `days` days from now, after `first` (at that time too). */
async function runCronDaysLater(
  days: number,
  first: () => Promise<unknown> = async () => undefined,
): Promise<void> {
  const later = Date.now() + days * DAY_MS;
  const spy = vi.spyOn(Date, "now").mockReturnValue(later);
  try {
    await first();
    await runCron();
  } finally {
    spy.mockRestore();
  }
}

/** A succeeded job made from an upload, as a customer sees it, with the R2 keys of its input and result. */
async function succeededJob(plan = "growth") {
  const created = await createWorkspace({ plan, credits: 1000 });
  const upload = await uploadFixture(created.api_key, "clip.mp4");
  const job = await createJob(created.api_key, { upload_id: upload.id });
  expect((await claim(job.id)).status).toBe(200);
  expect((await succeed(job.id, new Uint8Array(64).fill(1))).status).toBe(200);
  return {
    ...created,
    job,
    inputKey: `uploads/${created.workspace_id}/${upload.id}`,
    resultKey: `results/${created.workspace_id}/${job.id}.mp4`,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("retention: the scheduled task deletes files after the plan's retention_days", () => {
  it("a growth result is kept 30 days, then deleted: the job stays succeeded with result null and result_expired", async () => {
    const { api_key, job, inputKey, resultKey } = await succeededJob("growth");

    await runCronDaysLater(29);
    expect((await getJob(api_key, job.id)).result).not.toBeNull();
    expect(await env.BUCKET.head(resultKey)).not.toBeNull();

    await runCronDaysLater(31);
    const expired = await getJob(api_key, job.id);
    expect(expired).toMatchObject({
      status: "succeeded",
      result: null,
      // Deleting a file is no refund: the work was done.
      credits_refunded: false,
      error: { code: "result_expired" },
    });
    expect(await env.BUCKET.head(resultKey)).toBeNull();
    expect(await env.BUCKET.head(inputKey)).toBeNull();
    // A later run leaves the job as it is.
    await runCronDaysLater(32);
    expect(await getJob(api_key, job.id)).toEqual({ ...expired, result: null });
  });

  it("a workspace without a plan in force keeps files 7 days (the no-plan retention_days)", async () => {
    const { api_key, workspace_id, job, resultKey } = await succeededJob("growth");
    const kept = await succeededJob("growth");
    await env.DB.prepare("UPDATE workspaces SET subscription_status = 'canceled' WHERE id = ?")
      .bind(workspace_id)
      .run();
    await runCronDaysLater(8);
    // Without a plan the key has no API access: the plan comes back to read the job.
    await env.DB.prepare("UPDATE workspaces SET subscription_status = 'active' WHERE id = ?")
      .bind(workspace_id)
      .run();
    expect(await getJob(api_key, job.id)).toMatchObject({ result: null, error: { code: "result_expired" } });
    expect(await env.BUCKET.head(resultKey)).toBeNull();
    expect((await getJob(kept.api_key, kept.job.id)).result).not.toBeNull();
    expect(await env.BUCKET.head(kept.resultKey)).not.toBeNull();
  });

  it("an unused upload's file is deleted too; a job from it is refused with the reason", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const upload = await uploadFixture(api_key, "clip.mp4");
    await runCronDaysLater(31);
    const refused = await postJson("/v1/jobs", api_key, { upload_id: upload.id });
    const body = await expectError(refused, 409, "upload_incomplete");
    expect(body.error.message).toContain("retention");
  });

  it("files of a job still running are kept whatever their age", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const upload = await uploadFixture(api_key, "clip.mp4");
    const job = await createJob(api_key, { upload_id: upload.id });
    // 31 days on, a worker claims the job and reports progress (a lease that ran out is never
    // revived, so the claim comes then): the job is running when the task runs.
    const claimAndWork = async () => {
      expect((await claim(job.id)).status).toBe(200);
      const answer = await internal(`/jobs/${job.id}/progress`, {
        worker_id: "w1",
        stage: "cleaning",
        progress: 0.5,
      });
      expect(answer.status).toBe(200);
    };
    await runCronDaysLater(31, claimAndWork);
    expect(await env.BUCKET.head(`uploads/${workspace_id}/${upload.id}`)).not.toBeNull();
    expect(await getJob(api_key, job.id)).toMatchObject({ status: "processing", stage: "cleaning" });
  });
});
