import { Hono } from "hono";
import type { DashboardBindings } from "./context";
import { requireSession, sameOrigin } from "./guards";
import { dashboardAccountRoutes } from "./routes/account";
import { dashboardJobRoutes } from "./routes/jobs";
import { dashboardKeyRoutes } from "./routes/keys";
import { dashboardSessionRoutes } from "./routes/session";
import { dashboardWebhookRoutes } from "./routes/webhooks";

/** Everything past sign-in: one workspace, the session's. */
const signedIn = new Hono<DashboardBindings>()
  .use(requireSession)
  .route("/", dashboardAccountRoutes)
  .route("/", dashboardJobRoutes)
  .route("/", dashboardKeyRoutes)
  .route("/", dashboardWebhookRoutes);

/**
 * The dashboard's JSON API (mounted at /dashboard/api), used only by its own pages: cookie
 * sessions instead of API keys, the spec's error envelope. Every state-changing request must come
 * from our own Origin; the session routes come first because sign-in has no session yet.
 */
export const dashboardApi = new Hono<DashboardBindings>()
  .use(sameOrigin)
  .use(async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  })
  .route("/", dashboardSessionRoutes)
  .route("/", signedIn);
