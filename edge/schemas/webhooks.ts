import { z } from "@hono/zod-openapi";
import { pageLimitParam } from "./common";
import { JobSchema } from "./jobs";

export const EVENT_TYPES = ["job.succeeded", "job.failed", "job.canceled", "webhook.test"] as const;

export const WebhookEventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_4fQ2m9TqZkP1xW8bL0aYcD3e" }),
    object: z.literal("event"),
    type: z.enum(EVENT_TYPES),
    created_at: z.iso.datetime(),
    data: z.object({ object: JobSchema }),
  })
  .openapi("WebhookEvent");

export const EventWithDeliverySchema = WebhookEventSchema.extend({
  delivery: z.object({
    status: z.enum(["pending", "delivered", "failed", "skipped"]),
    attempts: z.number().int(),
    delivered_at: z.iso.datetime().nullable(),
    last_error: z.string().nullable().openapi({
      description:
        "Why the delivery is not done: the last attempt's failure (e.g. connection failed, the endpoint answered HTTP 500), or why it was skipped; null once delivered",
    }),
    next_attempt_at: z.iso.datetime().nullable().openapi({
      description: "When the next attempt is due, while one is scheduled after a failed attempt; else null",
    }),
  }),
}).openapi("EventWithDelivery");

export const EventListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(EventWithDeliverySchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  })
  .openapi("EventList");

export const WebhookEndpointSchema = z
  .object({
    object: z.literal("webhook_endpoint"),
    url: z.url().nullable(),
    enabled: z.boolean(),
    disabled_reason: z.enum(["gone", "failing"]).nullable().openapi({
      description:
        "Why the service switched the endpoint off: gone (it answered 410), failing (three days of failed deliveries, or one event failing its whole retry schedule)",
    }),
    signing_secret_prefix: z.string(),
    previous_secret_expires_at: z.iso.datetime().nullable().openapi({
      description: "While set, deliveries carry a second v1 signature made with the previous secret",
    }),
  })
  .openapi("WebhookEndpoint");

export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  signing_secret: z.string().openapi({ description: "whsec_…: shown in the answers that set or rotate it" }),
}).openapi("WebhookEndpointWithSecret");

export const WebhookEndpointUpdateSchema = z
  .object({
    url: z.string().min(1).max(2048),
    enabled: z.boolean().optional(),
  })
  .strict()
  .openapi("WebhookEndpointUpdate");

export const RotateSecretSchema = z
  .object({
    overlap_seconds: z.number().int().min(0).max(604_800).optional().openapi({
      description: "How long the previous secret keeps signing (default 86400, at most 7 days)",
    }),
  })
  .strict()
  .openapi("RotateSecret");

export const WebhookAttemptSchema = z
  .object({
    id: z.string(),
    object: z.literal("webhook_attempt"),
    attempt: z.number().int(),
    url: z.string(),
    response_status: z.number().int().nullable(),
    latency_ms: z.number().int(),
    error: z.string().nullable(),
    created_at: z.iso.datetime(),
  })
  .openapi("WebhookAttempt");

export const WebhookAttemptListSchema = z
  .object({ object: z.literal("list"), data: z.array(WebhookAttemptSchema), has_more: z.boolean() })
  .openapi("WebhookAttemptList");

export const EventIdParamSchema = z.object({
  id: z
    .string()
    .max(100)
    .openapi({ param: { name: "id", in: "path" }, example: "evt_4fQ2m9TqZkP1xW8bL0aYcD3e" }),
});

export const EventListQuerySchema = z.object({
  limit: pageLimitParam,
  starting_after: z
    .string()
    .max(100)
    .optional()
    .openapi({ param: { name: "starting_after", in: "query" } }),
});
