/** A plan row (the `plans` table); the values are seeded by migration and documented in the README. */
export interface Plan {
  id: PlanId;
  name: string;
  monthlyCredits: number;
  concurrentJobs: number;
  activeJobs: number;
  apiAccess: boolean;
  webhooks: boolean;
  retentionDays: number;
}

export const PLAN_IDS = ["starter", "growth", "scale"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** Limits of a workspace with no plan: dashboard only, with whatever pack credits it holds. */
export const NO_PLAN_LIMITS = {
  concurrentJobs: 1,
  activeJobs: 3,
  apiAccess: false,
  webhooks: false,
  retentionDays: 7,
} as const;

export const SUBSCRIPTION_STATUSES = ["none", "trialing", "active", "past_due", "canceled"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Statuses whose plan limits apply; any other status falls back to NO_PLAN_LIMITS. */
export const PLAN_IN_FORCE_STATUSES: readonly SubscriptionStatus[] = ["active", "trialing", "past_due"];

export function planIsInForce(status: SubscriptionStatus): boolean {
  return PLAN_IN_FORCE_STATUSES.includes(status);
}

/** Statuses whose plan credits are granted again at current_period_end. */
export function planRenews(status: SubscriptionStatus): boolean {
  return status === "active" || status === "trialing";
}
