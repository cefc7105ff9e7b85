import { and, desc, eq, isNull } from "drizzle-orm";
import type { PlanId, SubscriptionStatus } from "../billing/plans";
import type { Database } from "../db/client";
import { apiKeys, plans, workspaces } from "../db/schema";
import type { Env } from "../env";
import { generateApiKey, generateSigningSecret } from "../lib/api-keys";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { seal } from "../lib/secret-box";
import { workspaceObject } from "../workspace/stub";
import { findWorkspace, type WorkspaceRecord } from "./workspaces";

/** Billing periods are calendar months (UTC). */
export function addOneMonth(ms: number): number {
  const date = new Date(ms);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.getTime();
}

export async function requireWorkspace(db: Database, id: string): Promise<WorkspaceRecord> {
  const workspace = await findWorkspace(db, id);
  if (!workspace) throw new ApiError("resource_not_found", `No workspace ${id}.`, "workspace");
  return workspace;
}

async function planCredits(db: Database, planId: PlanId | null): Promise<number> {
  if (!planId) return 0;
  const rows = await db.select().from(plans).where(eq(plans.id, planId)).limit(1);
  return rows[0]?.monthlyCredits ?? 0;
}

export interface CreateWorkspaceInput {
  name?: string | undefined;
  planId: PlanId | null;
  /** Plan credits for the current period; defaults to the plan's monthly credits. */
  credits?: number | undefined;
  packCredits?: number | undefined;
}

export async function createWorkspace(env: Env, db: Database, input: CreateWorkspaceInput) {
  const now = Date.now();
  const workspaceId = newId("ws");
  const signingSecret = generateSigningSecret();
  const key = await generateApiKey();
  const keyId = newId("key");
  await db.batch([
    db.insert(workspaces).values({
      id: workspaceId,
      name: input.name ?? "Workspace",
      planId: input.planId,
      subscriptionStatus: input.planId ? "active" : "none",
      currentPeriodEnd: input.planId ? addOneMonth(now) : null,
      signingSecretSealed: await seal(env.DATA_KEY, signingSecret),
      createdAt: now,
    }),
    db
      .insert(apiKeys)
      .values({ id: keyId, workspaceId, keyHash: key.hash, prefix: key.prefix, createdAt: now }),
  ]);
  await workspaceObject(env, workspaceId).grant(
    { plan: input.credits ?? (await planCredits(db, input.planId)), pack: input.packCredits ?? 0 },
    "workspace_created",
  );
  return { workspace_id: workspaceId, api_key: key.key, key_id: keyId, signing_secret: signingSecret };
}

export async function createKey(db: Database, workspaceId: string, name = "") {
  await requireWorkspace(db, workspaceId);
  const key = await generateApiKey();
  const keyId = newId("key");
  await db
    .insert(apiKeys)
    .values({ id: keyId, workspaceId, keyHash: key.hash, prefix: key.prefix, name, createdAt: Date.now() });
  return { key_id: keyId, api_key: key.key, prefix: key.prefix };
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A workspace's keys, newest first, as the dashboard shows them: never the key, only its prefix. */
export async function listKeys(db: Database, workspaceId: string) {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.workspaceId, workspaceId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map((row) => ({
    key_id: row.id,
    prefix: row.prefix,
    name: row.name,
    created_at: new Date(row.createdAt).toISOString(),
    last_used_at: isoOrNull(row.lastUsedAt),
    revoked_at: isoOrNull(row.revokedAt),
  }));
}

export async function revokeKey(db: Database, workspaceId: string, keyId: string) {
  const revokedAt = Date.now();
  const revoked = await db
    .update(apiKeys)
    .set({ revokedAt })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.workspaceId, workspaceId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (revoked.length === 0) {
    throw new ApiError("resource_not_found", `No live key ${keyId} in workspace ${workspaceId}.`, "key_id");
  }
  return { key_id: keyId, revoked_at: new Date(revokedAt).toISOString() };
}

export interface SubscriptionChange {
  planId?: PlanId | null | undefined;
  status?: SubscriptionStatus | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
  currentPeriodEnd?: number | null | undefined;
}

export async function changeSubscription(db: Database, workspaceId: string, change: SubscriptionChange) {
  await requireWorkspace(db, workspaceId);
  await db
    .update(workspaces)
    .set({
      ...(change.planId === undefined ? {} : { planId: change.planId }),
      ...(change.status === undefined ? {} : { subscriptionStatus: change.status }),
      ...(change.cancelAtPeriodEnd === undefined ? {} : { cancelAtPeriodEnd: change.cancelAtPeriodEnd }),
      ...(change.currentPeriodEnd === undefined ? {} : { currentPeriodEnd: change.currentPeriodEnd }),
    })
    .where(eq(workspaces.id, workspaceId));
  return requireWorkspace(db, workspaceId);
}
