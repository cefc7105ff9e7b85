import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { planRequiredMessage } from "../billing/plans";
import { database } from "../db/client";
import type { AppBindings } from "../env";
import { ApiError } from "../lib/errors";
import type { AuthContext } from "../middleware/auth";
import { errorResponses, jsonResponse } from "../schemas/common";
import {
  EventIdParamSchema,
  EventListQuerySchema,
  EventListSchema,
  EventWithDeliverySchema,
  RotateSecretSchema,
  WebhookAttemptListSchema,
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema,
  WebhookEndpointWithSecretSchema,
} from "../schemas/webhooks";
import type { WorkspaceRecord } from "../services/workspaces";
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  readEndpoint,
  rotateSecret,
  setEndpoint,
} from "../webhooks/endpoint";
import { listAttempts, listEvents, redeliver, sendTestEvent } from "../webhooks/events";

const TAG = ["Webhooks"];

/** Webhooks are a plan feature (limits.webhooks): without it they answer 403 plan_required (API and dashboard). */
export function requireWebhookPlan(workspace: WorkspaceRecord): void {
  if (!workspace.limits.webhooks) {
    throw new ApiError("plan_required", planRequiredMessage("Webhook delivery", workspace.plan));
  }
}

const requireWebhooks = createMiddleware<AppBindings>(async (c, next) => {
  requireWebhookPlan((c.var.auth as AuthContext).workspace);
  await next();
});

const json = <T>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

const routes = {
  getEndpoint: createRoute({
    method: "get",
    path: "/v1/webhook_endpoint",
    tags: TAG,
    summary: "The workspace's webhook endpoint (the signing secret is shown only when set or rotated)",
    responses: { 200: jsonResponse(WebhookEndpointSchema, "The endpoint"), ...errorResponses(403) },
  }),
  setEndpoint: createRoute({
    method: "put",
    path: "/v1/webhook_endpoint",
    tags: TAG,
    summary: "Set the endpoint URL and whether it is enabled",
    request: { body: json(WebhookEndpointUpdateSchema) },
    responses: {
      200: jsonResponse(WebhookEndpointWithSecretSchema, "The endpoint, with its signing secret"),
      ...errorResponses(400, 403, 422),
    },
  }),
  rotate: createRoute({
    method: "post",
    path: "/v1/webhook_endpoint/rotate_secret",
    tags: TAG,
    summary: "Rotate the signing secret; the old one keeps signing (a second v1) during the overlap",
    request: { body: { ...json(RotateSecretSchema), required: false } },
    responses: {
      200: jsonResponse(WebhookEndpointWithSecretSchema, "The endpoint, with its new signing secret"),
      ...errorResponses(400, 403),
    },
  }),
  test: createRoute({
    method: "post",
    path: "/v1/webhook_endpoint/test",
    tags: TAG,
    summary: 'Send a webhook.test event (data.object is a sample Job with metadata.test = "true")',
    responses: {
      202: jsonResponse(EventWithDeliverySchema, "The event, on its way"),
      ...errorResponses(403),
    },
  }),
  listEvents: createRoute({
    method: "get",
    path: "/v1/events",
    tags: TAG,
    summary: "Recent events, newest first, with their delivery status",
    request: { query: EventListQuerySchema },
    responses: { 200: jsonResponse(EventListSchema, "A page of events"), ...errorResponses(400, 403) },
  }),
  attempts: createRoute({
    method: "get",
    path: "/v1/events/{id}/deliveries",
    tags: TAG,
    summary: "Every delivery attempt of an event: status, latency, error",
    request: { params: EventIdParamSchema },
    responses: { 200: jsonResponse(WebhookAttemptListSchema, "The attempts"), ...errorResponses(403, 404) },
  }),
  redeliver: createRoute({
    method: "post",
    path: "/v1/events/{id}/redeliver",
    tags: TAG,
    summary: "Send an event again now",
    request: { params: EventIdParamSchema },
    responses: {
      202: jsonResponse(EventWithDeliverySchema, "The event, on its way"),
      ...errorResponses(403, 404),
    },
  }),
};

const workspaceOf = (c: { var: { auth?: AuthContext } }) => (c.var.auth as AuthContext).workspace;

export const webhookRoutes = new OpenAPIHono<AppBindings>();
webhookRoutes.use("/v1/webhook_endpoint", requireWebhooks);
webhookRoutes.use("/v1/webhook_endpoint/*", requireWebhooks);
webhookRoutes.use("/v1/events", requireWebhooks);
webhookRoutes.use("/v1/events/*", requireWebhooks);
webhookRoutes
  .openapi(routes.getEndpoint, async (c) =>
    c.json(await readEndpoint(c.env, database(c.env.DB), workspaceOf(c).id), 200),
  )
  .openapi(routes.setEndpoint, async (c) => {
    const body = c.req.valid("json");
    return c.json(
      await setEndpoint(c.env, database(c.env.DB), workspaceOf(c).id, body.url, body.enabled),
      200,
    );
  })
  .openapi(routes.rotate, async (c) => {
    const overlap = c.req.valid("json")?.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
    return c.json(await rotateSecret(c.env, database(c.env.DB), workspaceOf(c).id, overlap), 200);
  })
  .openapi(routes.test, async (c) => c.json(await sendTestEvent(c.env, workspaceOf(c).id), 202))
  .openapi(routes.listEvents, async (c) => {
    const query = c.req.valid("query");
    return c.json(await listEvents(c.env, workspaceOf(c).id, query.limit ?? 20, query.starting_after), 200);
  })
  .openapi(routes.attempts, async (c) =>
    c.json(await listAttempts(c.env, workspaceOf(c).id, c.req.valid("param").id), 200),
  )
  .openapi(routes.redeliver, async (c) =>
    c.json(await redeliver(c.env, workspaceOf(c).id, c.req.valid("param").id), 202),
  );
