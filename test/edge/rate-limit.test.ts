import { describe, expect, it } from "vitest";
import {
  admin,
  api,
  awayFromWindowEdge,
  createWorkspace,
  expectError,
  expectStandardHeaders,
} from "./helpers";

/** Sends `count` requests, `parallel` at a time, and returns the answers in the order sent. */
async function burst(count: number, send: () => Promise<Response>, parallel = 1): Promise<Response[]> {
  const answers: Response[] = [];
  while (answers.length < count) {
    const size = Math.min(parallel, count - answers.length);
    answers.push(...(await Promise.all(Array.from({ length: size }, send))));
  }
  return answers;
}

describe("rate limits (per key, per method and endpoint, per minute)", () => {
  it("the 31st POST /v1/jobs in a minute gets 429 rate_limited with Retry-After", async () => {
    const { api_key } = await createWorkspace();
    await awayFromWindowEdge();
    const answers = await burst(31, () => api("/v1/jobs", { method: "POST", key: api_key }));
    for (const [index, response] of answers.slice(0, 30).entries()) {
      expect(response.status).not.toBe(429);
      expect(response.headers.get("X-RateLimit-Limit")).toBe("30");
      expect(response.headers.get("X-RateLimit-Remaining")).toBe(String(29 - index));
    }
    const refused = answers[30] as Response;
    const body = await expectError(refused, 429, "rate_limited");
    expect(body.error.type).toBe("rate_limit_error");
    expectStandardHeaders(refused);
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("0");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const reset = Number(refused.headers.get("X-RateLimit-Reset"));
    expect(reset * 1000).toBeGreaterThan(Date.now());
    expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
  });

  it("counts each endpoint and each key apart", async () => {
    const { workspace_id, api_key } = await createWorkspace();
    const other = await (await admin(`/workspaces/${workspace_id}/keys`, "POST", {})).json<{
      api_key: string;
    }>();
    await awayFromWindowEdge();
    await burst(30, () => api("/v1/jobs", { method: "POST", key: api_key }));
    await expectError(await api("/v1/jobs", { method: "POST", key: api_key }), 429, "rate_limited");
    // Another endpoint of the same key, and the same endpoint with another key, are untouched.
    const account = await api("/v1/account", { key: api_key });
    expect(account.status).toBe(200);
    expect(account.headers.get("X-RateLimit-Limit")).toBe("120");
    const otherKey = await api("/v1/jobs", { method: "POST", key: other.api_key });
    expect(otherKey.status).not.toBe(429);
    expect(otherKey.headers.get("X-RateLimit-Remaining")).toBe("29");
  });

  it.each([
    ["POST", "/v1/uploads", 60],
    ["GET", "/v1/jobs/job_abc", 240],
    ["GET", "/v1/jobs", 120],
    ["GET", "/v1/account", 120],
    ["GET", "/v1/estimate?duration_seconds=5", 120],
    ["POST", "/v1/jobs/job_abc/cancel", 120],
  ] as const)("%s %s allows %i a minute", async (method, path, limit) => {
    const { api_key } = await createWorkspace();
    const response = await api(path, { method, key: api_key });
    expect(response.headers.get("X-RateLimit-Limit")).toBe(String(limit));
    expect(response.headers.get("X-RateLimit-Remaining")).toBe(String(limit - 1));
  });

  it("GET /v1/jobs/{id} counts every id under one endpoint and refuses the 241st", async () => {
    const { api_key } = await createWorkspace();
    await awayFromWindowEdge(20);
    const answers = await burst(240, () => api(`/v1/jobs/job_${Math.random()}`, { key: api_key }), 20);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(0);
    await expectError(await api("/v1/jobs/job_last", { key: api_key }), 429, "rate_limited");
  });

  it("limits requests without a valid key per client address, and still sends the headers", async () => {
    await awayFromWindowEdge(20);
    const from = (address: string) => api("/v1/account", { headers: { "CF-Connecting-IP": address } });
    const answers = await burst(120, () => from("192.0.2.10"), 20);
    expect(answers.every((r) => r.status === 401)).toBe(true);
    for (const response of answers) expectStandardHeaders(response);
    await expectError(await from("192.0.2.10"), 429, "rate_limited");
    // Another address has its own window.
    await expectError(await from("192.0.2.11"), 401, "invalid_api_key");
  });

  it("counts requests refused by the plan gate", async () => {
    const { api_key } = await createWorkspace({ plan: "starter" });
    const first = await api("/v1/jobs", { method: "POST", key: api_key });
    const second = await api("/v1/jobs", { method: "POST", key: api_key });
    await expectError(second, 403, "plan_required");
    expect(Number(first.headers.get("X-RateLimit-Remaining")) - 1).toBe(
      Number(second.headers.get("X-RateLimit-Remaining")),
    );
  });
});
