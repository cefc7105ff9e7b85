import { MAX_DURATION_SECONDS } from "../../contract/video-limits";
import { creditsForDuration, durationLabel } from "../billing/pricing";
import { database } from "../db/client";
import type { Env } from "../env";
import { listPlans } from "./workspaces";

/**
 * The Estimate (GET /v1/estimate, MCP estimate_credits): the price of a duration, what each plan's
 * month buys, and whether the video is over the length limit (then no plan buys any).
 */
export async function estimateCredits(env: Env, durationSeconds: number) {
  const credits = creditsForDuration(durationSeconds);
  const tooLong = durationSeconds > MAX_DURATION_SECONDS;
  const plans = await listPlans(database(env.DB));
  return {
    object: "estimate" as const,
    duration_seconds: durationSeconds,
    credits,
    label: durationLabel(durationSeconds),
    plans: plans.map((plan) => ({
      plan: plan.id,
      videos_per_month: tooLong ? 0 : Math.floor(plan.monthlyCredits / credits),
    })),
    max_duration_seconds: MAX_DURATION_SECONDS,
    too_long: tooLong,
  };
}
