import { createMiddleware } from "hono/factory";
import { planRequiredMessage } from "../billing/plans";
import { database } from "../db/client";
import type { AppBindings } from "../env";
import { hashApiKey, looksLikeApiKey } from "../lib/api-keys";
import { ApiError } from "../lib/errors";
import { findKeyByHash, type WorkspaceRecord } from "../services/workspaces";

export interface AuthContext {
  keyId: string;
  workspace: WorkspaceRecord;
}

/** Bearer first, then X-API-Key; a malformed header counts as no key. */
export function presentedKey(
  authorization: string | undefined,
  apiKeyHeader: string | undefined,
): string | null {
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  const candidate = bearer ?? apiKeyHeader?.trim();
  return candidate && looksLikeApiKey(candidate) ? candidate : null;
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Identifies the workspace behind the API key. It does not refuse: the rate limiter counts the
 * request first (per address when there is no valid key), then `requireAuth` refuses.
 * The key is looked up by its SHA-256 on every request, so a revoked key fails at once.
 */
export const identify = createMiddleware<AppBindings>(async (c, next) => {
  const key = presentedKey(c.req.header("Authorization"), c.req.header("X-API-Key"));
  if (key) {
    const db = database(c.env.DB);
    const found = await findKeyByHash(db, await hashApiKey(key));
    if (found) {
      c.set("auth", { keyId: found.key.id, workspace: found.workspace });
      const now = Date.now();
      if ((found.key.lastUsedAt ?? 0) < now - LAST_USED_RESOLUTION_MS) {
        c.executionCtx.waitUntil(
          c.env.DB.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?").bind(now, found.key.id).run(),
        );
      }
    }
  }
  await next();
});

/**
 * Why no workspace was found, said so the user knows what to fix: nothing sent, something that is
 * not a key (a typo, a missing "Bearer "), or a well-formed key that is unknown or revoked.
 */
function missingKeyError(authorization: string | undefined, apiKeyHeader: string | undefined): ApiError {
  const header =
    authorization !== undefined ? "Authorization" : apiKeyHeader !== undefined ? "X-API-Key" : null;
  if (header === null)
    return new ApiError(
      "invalid_api_key",
      "No API key was sent. Send it as 'Authorization: Bearer <key>' or 'X-API-Key: <key>'.",
    );
  if (presentedKey(authorization, apiKeyHeader) === null)
    return new ApiError(
      "invalid_api_key",
      `The ${header} header holds no API key: send 'Authorization: Bearer sk_live_…' or 'X-API-Key: sk_live_…' ` +
        "(sk_live_ and 40 letters and digits).",
      header,
    );
  return new ApiError(
    "invalid_api_key",
    "This API key is unknown or was revoked. Check it was copied whole, or create a new one on the dashboard's API keys page.",
    header,
  );
}

export const requireAuth = createMiddleware<AppBindings>(async (c, next) => {
  if (!c.var.auth) throw missingKeyError(c.req.header("Authorization"), c.req.header("X-API-Key"));
  await next();
});

/** Paths that work without API access (spec, Authentication). */
const OPEN_TO_ALL_PLANS = new Set(["GET /v1/account", "GET /v1/estimate"]);

export const planGate = createMiddleware<AppBindings>(async (c, next) => {
  const auth = c.var.auth as AuthContext;
  if (!auth.workspace.limits.apiAccess && !OPEN_TO_ALL_PLANS.has(`${c.req.method} ${c.req.path}`)) {
    throw new ApiError(
      "plan_required",
      `${planRequiredMessage("API access", auth.workspace.plan)} Meanwhile GET /v1/account and GET /v1/estimate ` +
        "answer, and videos can be cleaned in the dashboard.",
    );
  }
  await next();
});
