import { OpenAPIHono } from "@hono/zod-openapi";
import { adminRoutes } from "./admin/routes";
import { edgeConfig } from "./config";
import { dashboardApi } from "./dashboard/api";
import type { AppBindings } from "./env";
import { internalRoutes } from "./internal/routes";
import { validationHook } from "./lib/validation";
import { MCP_PATH, mcpRoutes } from "./mcp/route";
import { identify, planGate, requireAuth } from "./middleware/auth";
import { jsonBodyLimit } from "./middleware/body-limit";
import { onError, onNotFound } from "./middleware/errors";
import { rateLimit } from "./middleware/rate-limit";
import { requestContext } from "./middleware/request-id";
import { accountRoutes } from "./routes/account";
import { estimateRoutes } from "./routes/estimate";
import { jobRoutes } from "./routes/jobs";
import { mountOpenApi, OPENAPI_PATH } from "./routes/openapi";
import { uploadRoutes } from "./routes/uploads";
import { webhookRoutes } from "./routes/webhooks";
import { localStorageRoutes } from "./storage/local-routes";

/**
 * The edge API: /v1 (the spec), /mcp (MCP server), /admin (operators), /internal (GPU workers),
 * /storage (local presigned), /health, and the dashboard's API (/dashboard/api; its pages are static
 * assets, wrangler.toml [assets]).
 */
export function createApp() {
  const app = new OpenAPIHono<AppBindings>({ defaultHook: validationHook });
  app.onError(onError);
  app.notFound(onNotFound);
  app.use(requestContext);
  // The variables are checked before anything uses them: a bad one fails here, naming itself.
  app.use(async (c, next) => {
    edgeConfig(c.env);
    await next();
  });

  app.get("/health", (c) => c.json({ status: "ok" }));
  // Every JSON API has its body capped before anything parses it; /storage streams files instead.
  app.use("/admin/*", jsonBodyLimit);
  app.use("/internal/*", jsonBodyLimit);
  app.use("/dashboard/api/*", jsonBodyLimit);
  app.route("/admin", adminRoutes);
  app.route("/internal", internalRoutes);
  // Presigned addresses of local mode (signature-checked, no API key).
  app.route("/", localStorageRoutes);

  // The public description of the API: no key needed, but counted per client address.
  app.use(OPENAPI_PATH, identify, rateLimit);
  mountOpenApi(app);

  // Order matters: identify the key, count the request (per key, or per address without one),
  // then refuse a missing key, then the plan gate.
  app.use("/v1/*", identify, rateLimit, jsonBodyLimit, requireAuth, planGate);
  app.route("/", accountRoutes);
  app.route("/", estimateRoutes);
  app.route("/", uploadRoutes);
  app.route("/", jobRoutes);
  app.route("/", webhookRoutes);

  // The owners' dashboard: cookie sessions, its own guards (edge/dashboard).
  app.route("/dashboard/api", dashboardApi);

  // The MCP server takes the same keys, headers and error envelope; its plan gate is per tool.
  app.use(MCP_PATH, identify, rateLimit, jsonBodyLimit, requireAuth);
  app.route("/", mcpRoutes);
  return app;
}
