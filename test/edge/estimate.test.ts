import { describe, expect, it } from "vitest";
import { api, createWorkspace, expectError } from "./helpers";

async function estimate(key: string, duration: string) {
  return api(`/v1/estimate?duration_seconds=${encodeURIComponent(duration)}`, { key });
}

describe("GET /v1/estimate", () => {
  it("bills 150 credits a minute per started second: 61.2 s bills 62 s = 155 credits", async () => {
    const { api_key } = await createWorkspace();
    const response = await estimate(api_key, "61.2");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      object: "estimate",
      duration_seconds: 61.2,
      credits: 155,
      label: "1 min 2 s",
      plans: [
        { plan: "starter", videos_per_month: 9 },
        { plan: "growth", videos_per_month: 58 },
        { plan: "scale", videos_per_month: 290 },
      ],
      max_duration_seconds: 900,
      too_long: false,
    });
  });

  it.each([
    ["60", 150, "1 min"],
    ["59.01", 150, "1 min"],
    ["45", 113, "45 s"], // 112.5 rounds up
    ["900", 2250, "15 min"],
    ["1", 25, "1 s"], // the minimum charge
    ["0.2", 25, "1 s"],
  ])("%s s costs %i credits (%s)", async (duration, credits, label) => {
    const { api_key } = await createWorkspace();
    const body = await (await estimate(api_key, duration)).json<{ credits: number; label: string }>();
    expect(body.credits).toBe(credits);
    expect(body.label).toBe(label);
  });

  it.each(["", "0", "-5", "abc", "NaN", "Infinity", "1e999", "12abc"])(
    "refuses duration_seconds=%j with 400 invalid_parameter",
    async (duration) => {
      const { api_key } = await createWorkspace();
      const body = await expectError(await estimate(api_key, duration), 400, "invalid_parameter");
      expect(body.error.param).toBe("duration_seconds");
    },
  );

  it("refuses a missing duration_seconds", async () => {
    const { api_key } = await createWorkspace();
    const body = await expectError(await api("/v1/estimate", { key: api_key }), 400, "invalid_parameter");
    expect(body.error.param).toBe("duration_seconds");
  });
});
