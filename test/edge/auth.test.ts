import { describe, expect, it } from "vitest";
import { admin, api, createWorkspace, expectError, expectStandardHeaders } from "./helpers";

describe("authentication", () => {
  it("accepts the key as a Bearer token and as X-API-Key", async () => {
    const { api_key } = await createWorkspace();
    const bearer = await api("/v1/account", { key: api_key });
    expect(bearer.status).toBe(200);
    const header = await api("/v1/account", { headers: { "X-API-Key": api_key } });
    expect(header.status).toBe(200);
    expectStandardHeaders(header);
  });

  it.each([
    ["no key", {}],
    ["an unknown key", { Authorization: `Bearer sk_live_${"A".repeat(40)}` }],
    ["a malformed key", { Authorization: "Bearer not-a-key" }],
    ["a malformed Authorization header", { Authorization: "Basic dXNlcjpwYXNz" }],
    ["an empty X-API-Key", { "X-API-Key": "" }],
  ])("refuses %s with 401 invalid_api_key in the envelope, with all headers", async (_name, headers) => {
    const response = await api("/v1/account", { headers });
    const body = await expectError(response, 401, "invalid_api_key");
    expect(body.error.type).toBe("authentication_error");
    expect(body.error.message).toMatch(/API key/);
    expectStandardHeaders(response);
  });

  it("refuses a revoked key on its very next request, and other keys keep working", async () => {
    const { workspace_id, api_key, key_id } = await createWorkspace();
    const second = await (await admin(`/workspaces/${workspace_id}/keys`, "POST", {})).json<{
      api_key: string;
    }>();
    expect((await api("/v1/account", { key: api_key })).status).toBe(200);
    const revoke = await admin(`/workspaces/${workspace_id}/keys/${key_id}/revoke`, "POST");
    expect(revoke.status).toBe(200);
    await expectError(await api("/v1/account", { key: api_key }), 401, "invalid_api_key");
    expect((await api("/v1/account", { key: second.api_key })).status).toBe(200);
  });

  it("keeps workspaces apart: each key sees its own workspace", async () => {
    const a = await createWorkspace({ plan: "growth", name: "A" });
    const b = await createWorkspace({ plan: "scale", name: "B" });
    const accountA = await (await api("/v1/account", { key: a.api_key })).json<{
      workspace: { id: string };
    }>();
    const accountB = await (await api("/v1/account", { key: b.api_key })).json<{
      workspace: { id: string };
    }>();
    expect(accountA.workspace.id).toBe(a.workspace_id);
    expect(accountB.workspace.id).toBe(b.workspace_id);
  });
});

describe("plan gate", () => {
  it.each(["starter", "none"])(
    "a %s workspace reads account and estimate but gets 403 elsewhere",
    async (plan) => {
      const { api_key } = await createWorkspace({ plan, credits: 300 });
      expect((await api("/v1/account", { key: api_key })).status).toBe(200);
      expect((await api("/v1/estimate?duration_seconds=30", { key: api_key })).status).toBe(200);
      for (const [method, path] of [
        ["GET", "/v1/jobs"],
        ["POST", "/v1/jobs"],
        ["POST", "/v1/uploads"],
        ["GET", "/v1/jobs/job_x"],
      ] as const) {
        const response = await api(path, { method, key: api_key });
        const body = await expectError(response, 403, "plan_required");
        expect(body.error.type).toBe("permission_error");
        expectStandardHeaders(response);
      }
    },
  );

  it("a growth workspace passes the gate: the same requests reach their handlers", async () => {
    const { api_key } = await createWorkspace({ plan: "growth" });
    expect((await api("/v1/jobs", { key: api_key })).status).toBe(200);
    await expectError(await api("/v1/jobs", { method: "POST", key: api_key }), 400, "invalid_parameter");
    await expectError(await api("/v1/uploads", { method: "POST", key: api_key }), 400, "invalid_parameter");
    await expectError(await api("/v1/jobs/job_x", { key: api_key }), 404, "job_not_found");
  });
});
