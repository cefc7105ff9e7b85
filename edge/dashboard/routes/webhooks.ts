import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { database } from "../../db/client";
import { parseJsonBody } from "../../lib/validation";
import { requireWebhookPlan } from "../../routes/webhooks";
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  readEndpoint,
  rotateSecret,
  setEndpoint,
} from "../../webhooks/endpoint";
import { listEvents, sendTestEvent } from "../../webhooks/events";
import type { DashboardBindings } from "../context";

const RECENT_EVENTS = 10;

/** The Webhooks page: the functions behind /v1/webhook_endpoint* and /v1/events, with the same plan rule. */
const webhookPlan = createMiddleware<DashboardBindings>(async (c, next) => {
  requireWebhookPlan(c.var.dashboard.workspace);
  await next();
});

export const dashboardWebhookRoutes = new Hono<DashboardBindings>()
  .use("/webhook", webhookPlan)
  .use("/webhook/*", webhookPlan)
  .get("/webhook", async (c) => {
    const workspaceId = c.var.dashboard.workspace.id;
    return c.json({
      endpoint: await readEndpoint(c.env, database(c.env.DB), workspaceId),
      recent_events: (await listEvents(c.env, workspaceId, RECENT_EVENTS)).data,
    });
  })
  .put("/webhook", async (c) => {
    const body = await parseJsonBody(c, z.object({ url: z.string().min(1).max(2048) }));
    return c.json(await setEndpoint(c.env, database(c.env.DB), c.var.dashboard.workspace.id, body.url));
  })
  .post("/webhook/test", async (c) => c.json(await sendTestEvent(c.env, c.var.dashboard.workspace.id), 202))
  .post("/webhook/rotate", async (c) =>
    c.json(
      await rotateSecret(
        c.env,
        database(c.env.DB),
        c.var.dashboard.workspace.id,
        DEFAULT_ROTATION_OVERLAP_SECONDS,
      ),
    ),
  );
