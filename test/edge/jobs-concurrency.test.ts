import { describe, expect, it } from "vitest";
import { admin, api, balance, createWorkspace, expectError, fixtureUrl, postJson } from "./helpers";

describe("job creation under concurrency", () => {
  it("20 concurrent POST /v1/jobs with one Idempotency-Key create one job and reserve once", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const body = { video_url: fixtureUrl("clip.mp4") };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        postJson("/v1/jobs", api_key, body, { "Idempotency-Key": "same-key" }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(await Promise.all(answers.map(async (r) => (await r.json<{ id: string }>()).id)));
    expect(ids.size).toBe(1);
    expect(answers.filter((r) => r.headers.get("Idempotent-Replayed") === "true")).toHaveLength(19);
    expect((await balance(api_key)).total).toBe(975);
    const list = await (await api("/v1/jobs", { key: api_key })).json<{ data: unknown[] }>();
    expect(list.data).toHaveLength(1);
    const conflict = await postJson(
      "/v1/jobs",
      api_key,
      { ...body, filename: "other.mp4" },
      { "Idempotency-Key": "same-key" },
    );
    await expectError(conflict, 409, "idempotency_conflict");
  });

  it("50 concurrent jobs against credits for 10 create exactly 10 and answer 402 to the rest", async () => {
    const { workspace_id, api_key } = await createWorkspace({ plan: "scale", credits: 250 });
    const second = await (await admin(`/workspaces/${workspace_id}/keys`, "POST", {})).json<{
      api_key: string;
    }>();
    const keys = [api_key, second.api_key]; // 25 each: under the 30 a minute per key
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        postJson("/v1/jobs", keys[i % 2] as string, { video_url: fixtureUrl("clip.mp4") }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    expect(await balance(api_key)).toEqual({ plan: 0, pack: 0, total: 0 });
    const list = await (await api("/v1/jobs?limit=100", { key: api_key })).json<{ data: unknown[] }>();
    expect(list.data).toHaveLength(10);
  });

  it("refuses a job past the plan's active_jobs with 429 and Retry-After, charging nothing", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 9000 });
    for (let i = 0; i < 25; i++) await postJson("/v1/jobs", api_key, { video_url: fixtureUrl("clip.mp4") });
    const before = await balance(api_key);
    const refused = await postJson("/v1/jobs", api_key, { video_url: fixtureUrl("clip.mp4") });
    const error = await expectError(refused, 429, "rate_limited");
    expect(error.error.message).toMatch(/unfinished jobs/);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await balance(api_key)).toEqual(before);
  });
});
