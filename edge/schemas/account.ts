import { z } from "@hono/zod-openapi";
import { PLAN_IDS, SUBSCRIPTION_STATUSES } from "../billing/plans";

export const AccountSchema = z
  .object({
    object: z.literal("account"),
    workspace: z.object({ id: z.string(), name: z.string() }),
    plan: z
      .object({ id: z.enum(PLAN_IDS), name: z.string(), monthly_credits: z.number().int() })
      .nullable()
      .openapi({ description: "The plan in force; null when the workspace has none" }),
    subscription_status: z.enum(SUBSCRIPTION_STATUSES).openapi({
      description:
        "none: no plan. trialing: plan in force, becomes active at the period end. active: plan in force, plan credits renewed at current_period_end. past_due: renewal payment failed; the plan stays in force but no plan credits are granted until it is active again. canceled: the plan ended; the workspace has no plan's limits, pack credits remain.",
    }),
    current_period_end: z.iso.datetime().nullable(),
    cancel_at_period_end: z.boolean(),
    credits: z.object({
      plan: z
        .number()
        .int()
        .openapi({ description: "This period's plan credits; spent first, expire at the period end" }),
      pack: z.number().int().openapi({ description: "Purchased credits; never expire" }),
      total: z.number().int(),
    }),
    minutes_available: z
      .number()
      .openapi({ description: "Minutes of video the credits pay for, rounded down" }),
    limits: z.object({
      concurrent_jobs: z.number().int().openapi({ description: "Jobs that run at the same time" }),
      active_jobs: z.number().int().openapi({ description: "Jobs not yet finished (queued or running)" }),
      api_access: z.boolean(),
      webhooks: z.boolean(),
      retention_days: z.number().int().openapi({ description: "Days uploads and results are kept" }),
    }),
    pricing: z.object({
      credits_per_minute: z.number().int(),
      minimum_credits_per_video: z.number().int(),
    }),
  })
  .openapi("Account");
