import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, balance, createJob, createWorkspace, expectError, fixtureUrl, type JobAnswer } from "./helpers";

interface ListAnswer {
  object: string;
  data: JobAnswer[];
  has_more: boolean;
  next_cursor: string | null;
}

async function list(key: string, query = ""): Promise<ListAnswer> {
  const response = await api(`/v1/jobs${query}`, { key });
  if (response.status !== 200) throw new Error(`list: ${response.status} ${await response.text()}`);
  return response.json<ListAnswer>();
}

async function makeJobs(key: string, count: number): Promise<JobAnswer[]> {
  const made: JobAnswer[] = [];
  for (let i = 0; i < count; i++) made.push(await createJob(key, { video_url: fixtureUrl("clip.mp4") }));
  return made;
}

describe("GET /v1/jobs", () => {
  it("lists newest first with limit, has_more and next_cursor, and pages with starting_after", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 9000 });
    const made = await makeJobs(api_key, 5);
    const newestFirst = made.map((job) => job.id).reverse();
    const all = await list(api_key);
    expect(all).toMatchObject({ object: "list", has_more: false, next_cursor: null });
    expect(all.data.map((job) => job.id)).toEqual(newestFirst);
    const first = await list(api_key, "?limit=2");
    expect(first.data.map((job) => job.id)).toEqual(newestFirst.slice(0, 2));
    expect(first).toMatchObject({ has_more: true, next_cursor: newestFirst[1] });
    const second = await list(api_key, `?limit=2&starting_after=${first.next_cursor}`);
    expect(second.data.map((job) => job.id)).toEqual(newestFirst.slice(2, 4));
    const third = await list(api_key, `?limit=2&starting_after=${second.next_cursor}`);
    expect(third.data.map((job) => job.id)).toEqual(newestFirst.slice(4));
    expect(third).toMatchObject({ has_more: false, next_cursor: null });
  });

  it("defaults to 20 a page and filters by status", async () => {
    const { api_key } = await createWorkspace({ plan: "scale", credits: 45000 });
    const made = await makeJobs(api_key, 22);
    expect((await list(api_key)).data).toHaveLength(20);
    await api(`/v1/jobs/${made[3]?.id}/cancel`, { method: "POST", key: api_key });
    const canceled = await list(api_key, "?status=canceled");
    expect(canceled.data.map((job) => job.id)).toEqual([made[3]?.id]);
    expect((await list(api_key, "?status=queued&limit=100")).data).toHaveLength(21);
  });

  it.each(["?limit=0", "?limit=101", "?limit=abc", "?limit=2.5", "?status=done"])(
    "refuses %s",
    async (query) => {
      const { api_key } = await createWorkspace();
      const error = await expectError(
        await api(`/v1/jobs${query}`, { key: api_key }),
        400,
        "invalid_parameter",
      );
      expect(["limit", "status"]).toContain(error.error.param);
    },
  );

  it("never shows another workspace's jobs, not even through a cursor", async () => {
    const mine = await createWorkspace({ plan: "growth", credits: 1000 });
    const theirs = await createWorkspace({ plan: "growth", credits: 1000 });
    const [theirJob] = await makeJobs(theirs.api_key, 1);
    expect((await list(mine.api_key)).data).toEqual([]);
    const response = await api(`/v1/jobs?starting_after=${theirJob?.id}`, { key: mine.api_key });
    const error = await expectError(response, 400, "invalid_parameter");
    expect(error.error.param).toBe("starting_after");
    expect(JSON.stringify(error)).not.toContain(theirs.workspace_id);
  });
});

describe("GET /v1/jobs/{id}", () => {
  it("returns the job, and 404 job_not_found for unknown ids and other workspaces' jobs", async () => {
    const mine = await createWorkspace({ plan: "growth", credits: 1000 });
    const theirs = await createWorkspace({ plan: "growth", credits: 1000 });
    const [job] = await makeJobs(mine.api_key, 1);
    const got = await api(`/v1/jobs/${job?.id}`, { key: mine.api_key });
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(job);
    await expectError(await api("/v1/jobs/job_nope", { key: mine.api_key }), 404, "job_not_found");
    const foreign = await expectError(
      await api(`/v1/jobs/${job?.id}`, { key: theirs.api_key }),
      404,
      "job_not_found",
    );
    expect(foreign.error.type).toBe("not_found_error");
  });
});

describe("POST /v1/jobs/{id}/cancel", () => {
  it("cancels a queued job, returns its credits once and records one job.canceled event", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const [job] = await makeJobs(api_key, 1);
    expect((await balance(api_key)).total).toBe(975);
    const response = await api(`/v1/jobs/${job?.id}/cancel`, { method: "POST", key: api_key });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: job?.id,
      status: "canceled",
      stage: null,
      credits_refunded: true,
      finished_at: expect.any(String),
    });
    expect((await balance(api_key)).total).toBe(1000);
    // Cancel again: the job comes back unchanged, nothing is refunded twice.
    const again = await api(`/v1/jobs/${job?.id}/cancel`, { method: "POST", key: api_key });
    expect(again.status).toBe(200);
    expect((await again.json<JobAnswer>()).status).toBe("canceled");
    expect((await balance(api_key)).total).toBe(1000);
    const events = await env.DB.prepare("SELECT type, payload FROM events WHERE job_id = ?")
      .bind(job?.id)
      .all();
    expect(events.results.map((row) => row.type)).toEqual(["job.canceled"]);
    const payload = JSON.parse(events.results[0]?.payload as string);
    expect(payload).toMatchObject({
      object: "event",
      type: "job.canceled",
      data: { object: { id: job?.id, status: "canceled" } },
    });
    expect(payload.id).toMatch(/^evt_/);
  });

  it("answers 404 for an unknown job and another workspace's job", async () => {
    const mine = await createWorkspace({ plan: "growth", credits: 1000 });
    const theirs = await createWorkspace({ plan: "growth", credits: 1000 });
    const [job] = await makeJobs(theirs.api_key, 1);
    await expectError(
      await api("/v1/jobs/job_nope/cancel", { method: "POST", key: mine.api_key }),
      404,
      "job_not_found",
    );
    await expectError(
      await api(`/v1/jobs/${job?.id}/cancel`, { method: "POST", key: mine.api_key }),
      404,
      "job_not_found",
    );
    expect((await balance(theirs.api_key)).total).toBe(975);
  });
});
