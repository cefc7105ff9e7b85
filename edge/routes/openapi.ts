import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppBindings } from "../env";

export const OPENAPI_PATH = "/v1/openapi.json";

export const OPENAPI_CONFIG: Parameters<OpenAPIHono["getOpenAPI31Document"]>[0] = {
  openapi: "3.1.0",
  info: {
    title: "Video Ad Cleaning API",
    version: "1.0.0",
    description:
      "Removes captions, hooks and text overlays from video ads and returns a clean MP4. " +
      "Every answer carries X-Request-Id and X-RateLimit-* headers; errors use one envelope.",
  },
  servers: [{ url: "/" }],
  security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
};

/**
 * Serves the OpenAPI 3.1 document, generated from the zod schemas the routes validate with. The
 * header (OPENAPI_CONFIG, with `security`) is the one `npm run client:types` and the tests use.
 */
export function mountOpenApi(app: OpenAPIHono<AppBindings>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "Authorization: Bearer <API_KEY>",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
  });
  app.doc31(OPENAPI_PATH, OPENAPI_CONFIG);
}
