import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client";
import { constantTimeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { requireWorkspace } from "../services/provisioning";
import type { DashboardBindings } from "./context";
import { csrfTokenFor, findSession, SESSION_COOKIE } from "./sessions";

export const CSRF_HEADER = "X-CSRF-Token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const isStateChanging = (method: string) => !SAFE_METHODS.has(method);

/**
 * First half of the CSRF defence, for every state-changing request (sign-in included): the browser's
 * Origin header must be this service's own. A request without one is refused too.
 */
export const sameOrigin = createMiddleware<DashboardBindings>(async (c, next) => {
  if (isStateChanging(c.req.method) && c.req.header("Origin") !== new URL(c.req.url).origin) {
    throw new ApiError("csrf_check_failed", "This request must come from the dashboard's own pages.");
  }
  await next();
});

/**
 * A live session (cookie) or 401; state-changing requests must also carry the session's CSRF token
 * in X-CSRF-Token (second half of the defence). Sets c.var.dashboard.
 */
export const requireSession = createMiddleware<DashboardBindings>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const db = database(c.env.DB);
  const session = token ? await findSession(db, token) : null;
  if (!token || !session) {
    throw new ApiError("session_required", "Sign in to the dashboard first (the session may have expired).");
  }
  if (
    isStateChanging(c.req.method) &&
    !(await constantTimeEqual(c.req.header(CSRF_HEADER) ?? "", await csrfTokenFor(token)))
  ) {
    throw new ApiError("csrf_check_failed", `Send the session's CSRF token in ${CSRF_HEADER}.`);
  }
  c.set("dashboard", { session, workspace: await requireWorkspace(db, session.workspaceId) });
  await next();
});
