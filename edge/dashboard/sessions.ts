import { and, eq, gt, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { ownerSessions, owners } from "../db/schema";
import { hmacSha256Hex, sha256Hex } from "../lib/crypto";
import { randomToken } from "../lib/ids";

export const SESSION_COOKIE = "adclean_session";
/** A session ends 12 hours after sign-in whatever happens meanwhile (checked here, not by the cookie). */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** Session and sign-in link tokens: 43 base62 characters, about 256 bits. */
export const TOKEN_LENGTH = 43;

export interface Session {
  tokenHash: string;
  ownerId: string;
  email: string;
  workspaceId: string;
  expiresAt: number;
}

export const newToken = () => randomToken(TOKEN_LENGTH);

/**
 * The session's CSRF token, derived from the cookie's token, so nothing more is stored and a page
 * of another origin (which cannot read the HttpOnly cookie) cannot compute it.
 */
export function csrfTokenFor(sessionToken: string): Promise<string> {
  return hmacSha256Hex(sessionToken, "adclean dashboard csrf v1");
}

/**
 * Starts a session; the caller gets the token (for the cookie), D1 only its SHA-256. The owner's
 * expired sessions go at the same time, so rows never pile up.
 */
export async function startSession(
  db: Database,
  owner: { id: string; workspaceId: string },
  nowMs = Date.now(),
): Promise<{ token: string; expiresAt: number }> {
  const token = newToken();
  const expiresAt = nowMs + SESSION_LIFETIME_MS;
  await db.batch([
    db
      .delete(ownerSessions)
      .where(and(eq(ownerSessions.ownerId, owner.id), lte(ownerSessions.expiresAt, nowMs))),
    db.insert(ownerSessions).values({
      tokenHash: await sha256Hex(token),
      ownerId: owner.id,
      workspaceId: owner.workspaceId,
      createdAt: nowMs,
      expiresAt,
    }),
  ]);
  return { token, expiresAt };
}

/** The live session behind a cookie's token, or null (unknown, signed out or expired). */
export async function findSession(db: Database, token: string, nowMs = Date.now()): Promise<Session | null> {
  const tokenHash = await sha256Hex(token);
  const [row] = await db
    .select({
      ownerId: ownerSessions.ownerId,
      workspaceId: ownerSessions.workspaceId,
      expiresAt: ownerSessions.expiresAt,
      email: owners.email,
    })
    .from(ownerSessions)
    .innerJoin(owners, eq(owners.id, ownerSessions.ownerId))
    .where(and(eq(ownerSessions.tokenHash, tokenHash), gt(ownerSessions.expiresAt, nowMs)))
    .limit(1);
  return row ? { tokenHash, ...row } : null;
}

export async function endSession(db: Database, tokenHash: string): Promise<void> {
  await db.delete(ownerSessions).where(eq(ownerSessions.tokenHash, tokenHash));
}
