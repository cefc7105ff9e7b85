import { createMiddleware } from "hono/factory";
import type { AppBindings, Env } from "../env";
import { ApiError } from "../lib/errors";
import { type RateBucket, type RateDecision, rateBucketFor } from "../workspace/rate-limit";
import { workspaceObject } from "../workspace/stub";

/** Counts one request of `subject` (a key, or an address) in `bucket`'s window of its workspace's object. */
export function countRequest(env: Env, objectName: string, subject: string, bucket: RateBucket) {
  return workspaceObject(env, objectName).hit(`${subject} ${bucket.name}`, bucket.limit);
}

/** The 429 of a request past its window's limit, with Retry-After. */
export function refuseIfLimited(decision: RateDecision, bucket: RateBucket): void {
  if (decision.allowed) return;
  throw new ApiError(
    "rate_limited",
    `Too many requests to ${bucket.name}: the limit is ${bucket.limit} a minute. Retry after ${decision.retryAfter} s.`,
    undefined,
    { "Retry-After": String(decision.retryAfter) },
  );
}

/**
 * Counts the request in the workspace's Durable Object, per key, method and endpoint; requests
 * without a valid key count per client address in an object of their own.
 */
export const rateLimit = createMiddleware<AppBindings>(async (c, next) => {
  const bucket = rateBucketFor(c.req.method, c.req.path);
  const auth = c.var.auth;
  const objectName = auth ? auth.workspace.id : `address:${c.req.header("CF-Connecting-IP") ?? "unknown"}`;
  const subject = auth ? `key:${auth.keyId}` : "anonymous";
  const decision = await countRequest(c.env, objectName, subject, bucket);
  c.set("rateLimit", decision);
  refuseIfLimited(decision, bucket);
  await next();
});
