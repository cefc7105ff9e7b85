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

/**
 * What a refused workspace can do about a plan feature it lacks. There is no plan control in the
 * dashboard: plans are set by the service's operator (admin API), so the message says whom to ask.
 */
export function planRequiredMessage(feature: string, plan: Pick<Plan, "name"> | null): string {
  const current = plan ? `the ${plan.name} plan` : "no plan";
  return (
    `${feature} needs the Growth or Scale plan; this workspace is on ${current}. ` +
    "Plans are changed by the service's operator, not in the dashboard: ask them to move the workspace to Growth or Scale."
  );
}
