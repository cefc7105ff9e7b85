import { and, eq, gt, isNotNull, isNull, lte, ne, or } from "drizzle-orm";
import type { Database } from "../db/client";
import { ownerSessions, ownerSignInLinks, owners } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { requireWorkspace } from "../services/provisioning";
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from "./passwords";
import { newToken } from "./sessions";

/** A one-time sign-in link is good for 30 minutes. */
export const SIGN_IN_LINK_TTL_MS = 30 * 60 * 1000;

export interface Owner {
  id: string;
  workspaceId: string;
  email: string;
}

const normalEmail = (email: string) => email.trim().toLowerCase();

async function findOwner(db: Database, email: string) {
  const [row] = await db
    .select()
    .from(owners)
    .where(eq(owners.email, normalEmail(email)))
    .limit(1);
  return row ?? null;
}

export async function createOwner(
  db: Database,
  workspaceId: string,
  email: string,
  password: string,
): Promise<Owner> {
  await requireWorkspace(db, workspaceId);
  if (await findOwner(db, email)) {
    throw new ApiError("owner_exists", `${normalEmail(email)} already owns a workspace.`, "email");
  }
  const owner = { id: newId("own"), workspaceId, email: normalEmail(email) };
  await db
    .insert(owners)
    .values({ ...owner, passwordHash: await hashPassword(password), createdAt: Date.now() });
  return owner;
}

/** The owner whose address and password these are, or null; an unknown address costs a hash too. */
export async function authenticate(db: Database, email: string, password: string): Promise<Owner | null> {
  const row = await findOwner(db, email);
  const matches = await verifyPassword(password, row?.passwordHash ?? DUMMY_PASSWORD_HASH);
  return row && matches ? { id: row.id, workspaceId: row.workspaceId, email: row.email } : null;
}

/** The owner of this workspace with this address; resource_not_found for anyone else. */
async function workspaceOwner(db: Database, workspaceId: string, email: string) {
  const row = await findOwner(db, email);
  if (!row || row.workspaceId !== workspaceId) {
    throw new ApiError(
      "resource_not_found",
      `No owner ${normalEmail(email)} in workspace ${workspaceId}.`,
      "email",
    );
  }
  return row;
}

/**
 * Stores the new password's hash and ends the owner's sessions, all but `keepSession` (a token
 * hash): whoever knew the old password is signed out everywhere.
 */
async function replacePassword(db: Database, ownerId: string, password: string, keepSession?: string) {
  const sessions = eq(ownerSessions.ownerId, ownerId);
  await db.batch([
    db
      .update(owners)
      .set({ passwordHash: await hashPassword(password) })
      .where(eq(owners.id, ownerId)),
    db
      .delete(ownerSessions)
      .where(keepSession ? and(sessions, ne(ownerSessions.tokenHash, keepSession)) : sessions),
  ]);
}

/** A signed-in owner changes their own password: the current one must be given, and right. */
export async function changePassword(
  db: Database,
  session: { ownerId: string; tokenHash: string },
  currentPassword: string,
  newPassword: string,
): Promise<void> {
  const [row] = await db
    .select({ passwordHash: owners.passwordHash })
    .from(owners)
    .where(eq(owners.id, session.ownerId))
    .limit(1);
  if (!row || !(await verifyPassword(currentPassword, row.passwordHash))) {
    throw new ApiError("invalid_credentials", "The current password is wrong.", "current_password");
  }
  await replacePassword(db, session.ownerId, newPassword, session.tokenHash);
}

/** An operator sets a new password for an owner who forgot theirs; every session of the owner ends. */
export async function resetPassword(
  db: Database,
  workspaceId: string,
  email: string,
  password: string,
): Promise<Owner> {
  const row = await workspaceOwner(db, workspaceId, email);
  await replacePassword(db, row.id, password);
  return { id: row.id, workspaceId: row.workspaceId, email: row.email };
}

/** A one-time sign-in token for a workspace's owner; only its SHA-256 is stored. */
export async function createSignInLink(db: Database, workspaceId: string, email: string) {
  const row = await workspaceOwner(db, workspaceId, email);
  const token = newToken();
  const now = Date.now();
  const expiresAt = now + SIGN_IN_LINK_TTL_MS;
  // The owner's spent and expired links go as a new one is made, so they never pile up.
  const spent = or(isNotNull(ownerSignInLinks.usedAt), lte(ownerSignInLinks.expiresAt, now));
  await db.batch([
    db.delete(ownerSignInLinks).where(and(eq(ownerSignInLinks.ownerId, row.id), spent)),
    db
      .insert(ownerSignInLinks)
      .values({ tokenHash: await sha256Hex(token), ownerId: row.id, createdAt: now, expiresAt }),
  ]);
  return { token, expiresAt };
}

/** Spends a sign-in token: one conditional update, so two concurrent uses cannot both win. */
export async function redeemSignInLink(
  db: Database,
  token: string,
  nowMs = Date.now(),
): Promise<Owner | null> {
  const [used] = await db
    .update(ownerSignInLinks)
    .set({ usedAt: nowMs })
    .where(
      and(
        eq(ownerSignInLinks.tokenHash, await sha256Hex(token)),
        isNull(ownerSignInLinks.usedAt),
        gt(ownerSignInLinks.expiresAt, nowMs),
      ),
    )
    .returning({ ownerId: ownerSignInLinks.ownerId });
  if (!used) return null;
  const [owner] = await db
    .select({ id: owners.id, workspaceId: owners.workspaceId, email: owners.email })
    .from(owners)
    .where(eq(owners.id, used.ownerId))
    .limit(1);
  return owner ?? null;
}
