import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppBindings } from "../env";
import { errorResponses, jsonResponse } from "../schemas/common";
import { EstimateQuerySchema, EstimateSchema } from "../schemas/estimate";
import { estimateCredits } from "../services/estimate";

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
  return c.json(await estimateCredits(c.env, duration_seconds), 200);
});
