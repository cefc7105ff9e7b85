import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { CREDITS_PER_MINUTE, MINIMUM_CREDITS_PER_VIDEO, minutesForCredits } from "../billing/pricing";
import type { AppBindings } from "../env";
import type { AuthContext } from "../middleware/auth";
import { AccountSchema } from "../schemas/account";
import { errorResponses, jsonResponse } from "../schemas/common";
import type { WorkspaceRecord } from "../services/workspaces";
import { workspaceObject } from "../workspace/stub";
import type { Balances } from "../workspace/workspace-object";

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function accountView(workspace: WorkspaceRecord, balances: Balances) {
  const total = balances.plan + balances.pack;
  const { limits, plan } = workspace;
  return {
    object: "account" as const,
    workspace: { id: workspace.id, name: workspace.name },
    plan: plan && { id: plan.id, name: plan.name, monthly_credits: plan.monthlyCredits },
    subscription_status: workspace.subscriptionStatus,
    current_period_end: isoOrNull(workspace.currentPeriodEnd),
    cancel_at_period_end: workspace.cancelAtPeriodEnd,
    credits: { plan: balances.plan, pack: balances.pack, total },
    minutes_available: minutesForCredits(total),
    limits: {
      concurrent_jobs: limits.concurrentJobs,
      active_jobs: limits.activeJobs,
      api_access: limits.apiAccess,
      webhooks: limits.webhooks,
      retention_days: limits.retentionDays,
    },
    pricing: { credits_per_minute: CREDITS_PER_MINUTE, minimum_credits_per_video: MINIMUM_CREDITS_PER_VIDEO },
  };
}

const getAccount = createRoute({
  method: "get",
  path: "/v1/account",
  tags: ["Account"],
  summary: "The workspace of the key: plan, credits, limits",
  responses: { 200: jsonResponse(AccountSchema, "The account"), ...errorResponses() },
});

export const accountRoutes = new OpenAPIHono<AppBindings>().openapi(getAccount, async (c) => {
  const { workspace } = c.var.auth as AuthContext;
  const balances = await workspaceObject(c.env, workspace.id).balances();
  return c.json(accountView(workspace, balances), 200);
});
