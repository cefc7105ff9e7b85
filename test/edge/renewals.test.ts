import { describe, expect, it } from "vitest";
import { admin, api, createWorkspace, expectError, runCron } from "./helpers";

interface AccountBody {
  plan: { id: string } | null;
  subscription_status: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  credits: { plan: number; pack: number; total: number };
  limits: { api_access: boolean };
}

async function endPeriodNow(workspaceId: string, extra: Record<string, unknown> = {}): Promise<void> {
  const past = new Date(Date.now() - 1000).toISOString();
  const response = await admin(`/workspaces/${workspaceId}`, "PATCH", { current_period_end: past, ...extra });
  expect(response.status).toBe(200);
}

async function account(key: string): Promise<AccountBody> {
  return (await api("/v1/account", { key })).json();
}

describe("plan renewal (scheduled task)", () => {
  it("an active plan's unused credits expire and the monthly credits come back; pack credits stay", async () => {
    const { workspace_id, api_key } = await createWorkspace({
      plan: "growth",
      credits: 120,
      pack_credits: 40,
    });
    await endPeriodNow(workspace_id);
    await runCron();
    const after = await account(api_key);
    expect(after.credits).toEqual({ plan: 9000, pack: 40, total: 9040 });
    expect(after.subscription_status).toBe("active");
    expect(Date.parse(after.current_period_end as string)).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    // A second run in the same period grants nothing more.
    await runCron();
    expect((await account(api_key)).credits.plan).toBe(9000);
  });

  it("a trialing plan becomes active at the period end", async () => {
    const { workspace_id, api_key } = await createWorkspace({ plan: "scale", credits: 0 });
    await endPeriodNow(workspace_id, { subscription_status: "trialing" });
    await runCron();
    const after = await account(api_key);
    expect(after.subscription_status).toBe("active");
    expect(after.credits.plan).toBe(45000);
  });

  it("past_due keeps the plan's limits but grants no plan credits", async () => {
    const { workspace_id, api_key } = await createWorkspace({
      plan: "growth",
      credits: 500,
      pack_credits: 10,
    });
    await endPeriodNow(workspace_id, { subscription_status: "past_due" });
    await runCron();
    const after = await account(api_key);
    expect(after.subscription_status).toBe("past_due");
    expect(after.credits).toEqual({ plan: 0, pack: 10, total: 10 });
    expect(after.limits.api_access).toBe(true);
  });

  it("cancel_at_period_end ends the plan: status canceled, plan null, API access gone, pack kept", async () => {
    const { workspace_id, api_key } = await createWorkspace({
      plan: "growth",
      credits: 500,
      pack_credits: 75,
    });
    await endPeriodNow(workspace_id, { cancel_at_period_end: true });
    expect((await account(api_key)).cancel_at_period_end).toBe(true);
    await runCron();
    const after = await account(api_key);
    expect(after).toMatchObject({
      plan: null,
      subscription_status: "canceled",
      current_period_end: null,
      cancel_at_period_end: false,
      credits: { plan: 0, pack: 75, total: 75 },
      limits: { api_access: false },
    });
    await expectError(await api("/v1/jobs", { key: api_key }), 403, "plan_required");
  });

  it("a workspace without a plan reports plan null and the no-plan limits", async () => {
    const { api_key } = await createWorkspace({ plan: "none", pack_credits: 300 });
    const body = await account(api_key);
    expect(body).toMatchObject({
      plan: null,
      subscription_status: "none",
      current_period_end: null,
      credits: { plan: 0, pack: 300, total: 300 },
      limits: { api_access: false, webhooks: false },
    });
  });
});

describe("admin credits", () => {
  it("adds plan and pack credits, seen in the account", async () => {
    const { workspace_id, api_key } = await createWorkspace({ plan: "growth", credits: 0 });
    expect((await admin(`/workspaces/${workspace_id}/credits`, "POST", { pack: 250 })).status).toBe(200);
    expect((await admin(`/workspaces/${workspace_id}/credits`, "POST", { plan: 100 })).status).toBe(200);
    expect((await account(api_key)).credits).toEqual({ plan: 100, pack: 250, total: 350 });
    const bad = await admin(`/workspaces/${workspace_id}/credits`, "POST", { pack: -5 });
    await expectError(bad, 400, "invalid_parameter");
  });
});
