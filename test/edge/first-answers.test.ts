import { describe, expect, it } from "vitest";
import { api, createWorkspace, expectError, postJson } from "./helpers";

/** The first answer a newcomer gets must be the right one (issue 25): limits, plans and messages. */
describe("estimates tell the length limit", () => {
  it("marks a video over 15 minutes as too long, and no plan buys any", async () => {
    const { api_key } = await createWorkspace();
    const body = await (await api("/v1/estimate?duration_seconds=100000", { key: api_key })).json();
    expect(body).toMatchObject({
      credits: 250000,
      too_long: true,
      max_duration_seconds: 900,
      plans: [
        { plan: "starter", videos_per_month: 0 },
        { plan: "growth", videos_per_month: 0 },
        { plan: "scale", videos_per_month: 0 },
      ],
    });
  });

  it("keeps exactly 15 minutes within the limit", async () => {
    const { api_key } = await createWorkspace();
    const body = await (await api("/v1/estimate?duration_seconds=900", { key: api_key })).json();
    expect(body).toMatchObject({ too_long: false, max_duration_seconds: 900 });
  });
});

describe("plan_required says what the user can do", () => {
  it("names the workspace's plan and who changes it, with no dashboard control promised", async () => {
    const { api_key } = await createWorkspace({ plan: "starter" });
    const body = await expectError(await api("/v1/jobs", { key: api_key }), 403, "plan_required");
    expect(body.error.message).toContain("this workspace is on the Starter plan");
    expect(body.error.message).toContain("ask them to move the workspace to Growth or Scale");
    expect(body.error.message).not.toMatch(/upgrade .* in the dashboard/i);
  });
});

describe("4xx messages a user can act on, naming the field", () => {
  it("tells a wrong key from a missing one", async () => {
    const missing = await expectError(await api("/v1/account"), 401, "invalid_api_key");
    expect(missing.error.message).toMatch(/^No API key was sent/);
    const wrong = await expectError(
      await api("/v1/account", { key: `sk_live_${"A".repeat(40)}` }),
      401,
      "invalid_api_key",
    );
    expect(wrong.error.message).toMatch(/^This API key is unknown or was revoked/);
    expect(wrong.error.param).toBe("Authorization");
    const garbled = await expectError(
      await api("/v1/account", { headers: { "X-API-Key": "sk_live_short" } }),
      401,
      "invalid_api_key",
    );
    expect(garbled.error.message).toMatch(/^The X-API-Key header holds no API key/);
    expect(garbled.error.param).toBe("X-API-Key");
  });

  it.each([
    ["too long", "k".repeat(256)],
    ["empty", ""],
  ])("answers an Idempotency-Key %s in a sentence, with the 409's param spelling", async (_case, key) => {
    const { api_key } = await createWorkspace();
    const body = await expectError(
      await postJson(
        "/v1/uploads",
        api_key,
        { filename: "a.mp4", content_type: "video/mp4", size_bytes: 10 },
        {
          "Idempotency-Key": key,
        },
      ),
      400,
      "invalid_parameter",
    );
    expect(body.error.param).toBe("Idempotency-Key");
    expect(body.error.message).toMatch(/^Idempotency-Key must be 1 to 255 characters/);
  });

  it("names an unknown body field and the right spelling", async () => {
    const { api_key } = await createWorkspace();
    const body = await expectError(
      await postJson("/v1/jobs", api_key, { uploadId: "up_x" }),
      400,
      "invalid_parameter",
    );
    expect(body.error.param).toBe("uploadId");
    expect(body.error.message).toBe(
      "Unknown field 'uploadId'. Did you mean 'upload_id'? Fields are written in snake_case; see /v1/openapi.json.",
    );
  });

  it("writes a field of the wrong type as a sentence, not zod's text", async () => {
    const { api_key } = await createWorkspace();
    const body = await expectError(
      await postJson("/v1/uploads", api_key, { filename: 7, content_type: "video/mp4", size_bytes: 10 }),
      400,
      "invalid_parameter",
    );
    expect(body.error).toMatchObject({ param: "filename", message: "'filename' must be a string." });
  });
});
