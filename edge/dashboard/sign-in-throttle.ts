import { createMiddleware } from "hono/factory";
import { ApiError } from "../lib/errors";
import { workspaceObject } from "../workspace/stub";
import type { DashboardBindings } from "./context";

/** Sign-in attempts (password or link) allowed per client address and minute: slows password guessing. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;

/** Counts sign-in attempts per address in the same Durable Object windows as /v1's anonymous requests. */
export const signInThrottle = createMiddleware<DashboardBindings>(async (c, next) => {
  const address = c.req.header("CF-Connecting-IP") ?? "unknown";
  const decision = await workspaceObject(c.env, `address:${address}`).hit(
    "dashboard sign-in",
    SIGN_IN_ATTEMPTS_PER_MINUTE,
  );
  if (!decision.allowed) {
    throw new ApiError(
      "rate_limited",
      `Too many sign-in attempts from this address. Retry after ${decision.retryAfter} s.`,
      undefined,
      { "Retry-After": String(decision.retryAfter) },
    );
  }
  await next();
});
