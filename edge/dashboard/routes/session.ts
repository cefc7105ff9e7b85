import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { database } from "../../db/client";
import { type Env, isLocal } from "../../env";
import { ApiError } from "../../lib/errors";
import { parseJsonBody } from "../../lib/validation";
import { requireWorkspace } from "../../services/provisioning";
import type { DashboardBindings, DashboardRequest } from "../context";
import { requireSession } from "../guards";
import { authenticate, changePassword, type Owner, redeemSignInLink } from "../owners";
import { NewPassword } from "../passwords";
import { csrfTokenFor, endSession, SESSION_COOKIE, SESSION_LIFETIME_MS, startSession } from "../sessions";
import { signInThrottle } from "../sign-in-throttle";

const SignIn = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) });
const LinkSignIn = z.object({ token: z.string().min(1).max(100) });
const PasswordChange = z.object({ current_password: z.string().min(1).max(1024), new_password: NewPassword });

/** HttpOnly, SameSite=Strict, Secure everywhere but local mode (plain http on 127.0.0.1). */
export function sessionCookieOptions(env: Env) {
  return { path: "/", httpOnly: true, sameSite: "Strict", secure: !isLocal(env) } as const;
}

/** Who is signed in, to which workspace, and the CSRF token the pages send back. */
async function sessionAnswer(c: DashboardRequest, owner: Owner, token: string, expiresAt: number) {
  const workspace = await requireWorkspace(database(c.env.DB), owner.workspaceId);
  return {
    object: "session" as const,
    email: owner.email,
    workspace: { id: workspace.id, name: workspace.name },
    expires_at: new Date(expiresAt).toISOString(),
    csrf_token: await csrfTokenFor(token),
  };
}

async function signIn(c: DashboardRequest, owner: Owner) {
  const { token, expiresAt } = await startSession(database(c.env.DB), owner);
  setCookie(c, SESSION_COOKIE, token, { ...sessionCookieOptions(c.env), maxAge: SESSION_LIFETIME_MS / 1000 });
  return c.json(await sessionAnswer(c, owner, token, expiresAt), 201);
}

export const dashboardSessionRoutes = new Hono<DashboardBindings>()
  .post("/session", signInThrottle, async (c) => {
    const body = await parseJsonBody(c, SignIn);
    const owner = await authenticate(database(c.env.DB), body.email, body.password);
    if (!owner) throw new ApiError("invalid_credentials", "Wrong email address or password.");
    return signIn(c, owner);
  })
  .post("/session/link", signInThrottle, async (c) => {
    const body = await parseJsonBody(c, LinkSignIn);
    const owner = await redeemSignInLink(database(c.env.DB), body.token);
    if (!owner) {
      throw new ApiError(
        "invalid_credentials",
        "This sign-in link was already used or has expired. Ask for a new one.",
      );
    }
    return signIn(c, owner);
  })
  .get("/session", requireSession, async (c) => {
    const { session } = c.var.dashboard;
    const owner = { id: session.ownerId, workspaceId: session.workspaceId, email: session.email };
    return c.json(await sessionAnswer(c, owner, getCookie(c, SESSION_COOKIE) ?? "", session.expiresAt));
  })
  // Throttled as sign-in is: a wrong current password is a guess at it.
  .put("/session/password", signInThrottle, requireSession, async (c) => {
    const body = await parseJsonBody(c, PasswordChange);
    const { session } = c.var.dashboard;
    await changePassword(database(c.env.DB), session, body.current_password, body.new_password);
    return c.body(null, 204);
  })
  .delete("/session", requireSession, async (c) => {
    await endSession(database(c.env.DB), c.var.dashboard.session.tokenHash);
    deleteCookie(c, SESSION_COOKIE, sessionCookieOptions(c.env));
    return c.body(null, 204);
  });
