import { z } from "@hono/zod-openapi";
import { PLAN_IDS } from "../billing/plans";

const POSITIVE_DURATION = "duration_seconds must be a number of seconds greater than 0";

export const EstimateQuerySchema = z.object({
  duration_seconds: z
    .string({ error: POSITIVE_DURATION })
    .trim()
    .regex(/^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/, POSITIVE_DURATION)
    .transform(Number)
    .refine((value) => Number.isFinite(value) && value > 0, POSITIVE_DURATION)
    .openapi({
      param: { name: "duration_seconds", in: "query", required: true },
      type: "number",
      exclusiveMinimum: 0,
      example: 61.2,
    }),
});

export const EstimateSchema = z
  .object({
    object: z.literal("estimate"),
    duration_seconds: z.number(),
    credits: z.number().int(),
    label: z.string().openapi({ example: "1 min 2 s" }),
    plans: z.array(z.object({ plan: z.enum(PLAN_IDS), videos_per_month: z.number().int() })).openapi({
      description:
        "Videos of this length each plan's monthly credits pay for; 0 for every plan when too_long",
    }),
    max_duration_seconds: z.number().int().openapi({
      description:
        "The longest video the service cleans (15 minutes); a longer one is refused with 422 video_too_long",
      example: 900,
    }),
    too_long: z.boolean().openapi({
      description:
        "true when duration_seconds is over max_duration_seconds: a job for such a video is refused",
    }),
  })
  .openapi("Estimate");
