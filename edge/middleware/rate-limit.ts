import { createMiddleware } from "hono/factory";
import type { AppBindings } from "../env";
import { ApiError } from "../lib/errors";
import { rateBucketFor } from "../workspace/rate-limit";
import { workspaceObject } from "../workspace/stub";

/**
 * Counts the request in the workspace's Durable Object, per key, method and endpoint; requests
 * without a valid key count per client address in an object of their own.
 */
export const rateLimit = createMiddleware<AppBindings>(async (c, next) => {
  const bucket = rateBucketFor(c.req.method, c.req.path);
  const auth = c.var.auth;
  const objectName = auth ? auth.workspace.id : `address:${c.req.header("CF-Connecting-IP") ?? "unknown"}`;
  const subject = auth ? `key:${auth.keyId}` : "anonymous";
  const decision = await workspaceObject(c.env, objectName).hit(`${subject} ${bucket.name}`, bucket.limit);
  c.set("rateLimit", decision);
  if (!decision.allowed) {
    throw new ApiError(
      "rate_limited",
      `Too many requests to ${bucket.name}: the limit is ${bucket.limit} a minute. Retry after ${decision.retryAfter} s.`,
      undefined,
      { "Retry-After": String(decision.retryAfter) },
    );
  }
  await next();
});
