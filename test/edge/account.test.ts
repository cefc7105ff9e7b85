import { describe, expect, it } from "vitest";
import { api, createWorkspace } from "./helpers";

describe("GET /v1/account", () => {
  it("answers every field of the spec's Account for a growth workspace", async () => {
    const { workspace_id, api_key } = await createWorkspace({ plan: "growth", credits: 1000, name: "Acme" });
    const response = await api("/v1/account", { key: api_key });
    expect(response.status).toBe(200);
    const account = await response.json<Record<string, unknown>>();
    expect(account).toMatchObject({
      object: "account",
      workspace: { id: workspace_id, name: "Acme" },
      plan: { id: "growth", name: "Growth", monthly_credits: 9000 },
      subscription_status: "active",
      cancel_at_period_end: false,
      credits: { plan: 1000, pack: 0, total: 1000 },
      minutes_available: 6.66,
      limits: { concurrent_jobs: 3, active_jobs: 25, api_access: true, webhooks: true, retention_days: 30 },
      pricing: { credits_per_minute: 150, minimum_credits_per_video: 25 },
    });
    expect(Date.parse(account.current_period_end as string)).toBeGreaterThan(Date.now());
  });
});
