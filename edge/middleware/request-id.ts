import { createMiddleware } from "hono/factory";
import type { AppBindings } from "../env";
import { newId } from "../lib/ids";
import { rateLimitHeaders } from "../workspace/rate-limit";

/**
 * Outermost middleware: gives the request its `req_…` id and, on the way out, stamps X-Request-Id
 * and the X-RateLimit-* headers of the window the request counted in onto every answer, errors included.
 */
export const requestContext = createMiddleware<AppBindings>(async (c, next) => {
  c.set("requestId", newId("req"));
  await next();
  // Answers made from another response (a fetch, an R2 body) can have immutable headers.
  c.res = new Response(c.res.body, c.res);
  c.res.headers.set("X-Request-Id", c.var.requestId);
  const decision = c.var.rateLimit;
  if (decision) {
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.res.headers.set(name, value);
  }
});
