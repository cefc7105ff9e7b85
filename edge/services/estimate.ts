import { creditsForDuration, durationLabel } from "../billing/pricing";
import { database } from "../db/client";
import type { Env } from "../env";
import { listPlans } from "./workspaces";

/** The Estimate (GET /v1/estimate, MCP estimate_credits): the price of a duration and what each plan's month buys. */
export async function estimateCredits(env: Env, durationSeconds: number) {
  const credits = creditsForDuration(durationSeconds);
  const plans = await listPlans(database(env.DB));
  return {
    object: "estimate" as const,
    duration_seconds: durationSeconds,
    credits,
    label: durationLabel(durationSeconds),
    plans: plans.map((plan) => ({
      plan: plan.id,
      videos_per_month: Math.floor(plan.monthlyCredits / credits),
    })),
  };
}
