import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { creditsForDuration, durationLabel } from "../billing/pricing";
import { database } from "../db/client";
import type { AppBindings } from "../env";
import { errorResponses, jsonResponse } from "../schemas/common";
import { EstimateQuerySchema, EstimateSchema } from "../schemas/estimate";
import { listPlans } from "../services/workspaces";

const getEstimate = createRoute({
  method: "get",
  path: "/v1/estimate",
  tags: ["Account"],
  summary: "Credits a video of the given duration costs",
  request: { query: EstimateQuerySchema },
  responses: { 200: jsonResponse(EstimateSchema, "The estimate"), ...errorResponses(400) },
});

export const estimateRoutes = new OpenAPIHono<AppBindings>().openapi(getEstimate, async (c) => {
  const { duration_seconds } = c.req.valid("query");
  const credits = creditsForDuration(duration_seconds);
  const plans = await listPlans(database(c.env.DB));
  return c.json(
    {
      object: "estimate" as const,
      duration_seconds,
      credits,
      label: durationLabel(duration_seconds),
      plans: plans.map((plan) => ({
        plan: plan.id,
        videos_per_month: Math.floor(plan.monthlyCredits / credits),
      })),
    },
    200,
  );
});
