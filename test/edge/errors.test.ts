import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, api, createWorkspace, expectError, expectStandardHeaders } from "./helpers";

describe("error envelope", () => {
  it("answers unknown routes with 404 resource_not_found in the envelope", async () => {
    const { api_key } = await createWorkspace();
    const response = await api("/v1/nothing/here", { key: api_key, method: "DELETE" });
    const body = await expectError(response, 404, "resource_not_found");
    expect(body.error.type).toBe("not_found_error");
    expectStandardHeaders(response);
    const outside = await api("/not-v1");
    await expectError(outside, 404, "resource_not_found");
  });

  it("answers an unexpected failure with 500 api_error internal_error in the envelope, saying nothing inside", async () => {
    const { api_key } = await createWorkspace();
    // Provoked for real: the jobs table is moved away under the running Worker, then put back.
    await env.DB.exec("ALTER TABLE jobs RENAME TO jobs_moved_away");
    try {
      const response = await api("/v1/jobs", { key: api_key });
      const body = await expectError(response, 500, "internal_error");
      expect(body.error.type).toBe("api_error");
      expect(body.error.request_id).toBe(response.headers.get("X-Request-Id"));
      expect(body.error.message).toBe(
        "Something went wrong on our side. Retry with the same Idempotency-Key.",
      );
      expectStandardHeaders(response);
    } finally {
      await env.DB.exec("ALTER TABLE jobs_moved_away RENAME TO jobs");
    }
    expect((await api("/v1/jobs", { key: api_key })).status).toBe(200);
  });

  it("answers invalid JSON with 400 invalid_json and never a stack trace", async () => {
    const response = await admin("/workspaces", "POST");
    const raw = await api("/admin/workspaces", {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-token", "Content-Type": "application/json" },
      body: '{"plan": "growth",',
    });
    const body = await expectError(raw, 400, "invalid_json");
    expect(body.error.type).toBe("invalid_request_error");
    expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|\.ts:\d+/);
    await expectError(response, 400, "invalid_json");
  });

  it("names the offending parameter of an invalid body", async () => {
    const response = await admin("/workspaces", "POST", { plan: "platinum" });
    const body = await expectError(response, 400, "invalid_parameter");
    expect(body.error.param).toBe("plan");
  });

  it("gives every answer its own request id", async () => {
    const { api_key } = await createWorkspace();
    const ids = new Set<string | null>();
    for (let i = 0; i < 5; i++)
      ids.add((await api("/v1/account", { key: api_key })).headers.get("X-Request-Id"));
    expect(ids.size).toBe(5);
  });

  it("refuses the admin API without the admin token", async () => {
    const response = await api("/admin/workspaces", {
      method: "POST",
      headers: { Authorization: "Bearer wrong" },
    });
    await expectError(response, 401, "invalid_api_key");
  });

  describe("a body over 2 MiB is refused with 413 request_too_large before it is parsed", () => {
    const oversized = JSON.stringify({ email: "a@example.com", password: "x".repeat(3_000_000) });

    it("on /v1, with the rate headers", async () => {
      const { api_key } = await createWorkspace();
      const response = await api("/v1/jobs", {
        method: "POST",
        key: api_key,
        headers: { "Content-Type": "application/json" },
        body: oversized,
      });
      await expectError(response, 413, "request_too_large");
      expectStandardHeaders(response);
    });

    it("on the dashboard's sign-in, which needs no key, also when the body is streamed without a length", async () => {
      const signIn = (body: BodyInit) =>
        api("/dashboard/api/session", {
          method: "POST",
          headers: { "Content-Type": "application/json", Origin: "http://edge.test" },
          body,
        });
      await expectError(await signIn(oversized), 413, "request_too_large");
      const bytes = new TextEncoder().encode(oversized);
      const streamed = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 65_536)
            controller.enqueue(bytes.subarray(at, at + 65_536));
          controller.close();
        },
      });
      await expectError(await signIn(streamed), 413, "request_too_large");
    });

    it("on /mcp", async () => {
      const { api_key } = await createWorkspace();
      const response = await api("/mcp", {
        method: "POST",
        key: api_key,
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: oversized,
      });
      await expectError(response, 413, "request_too_large");
    });
  });
});
