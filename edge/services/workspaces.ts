import { and, eq, isNull } from "drizzle-orm";
import {
  NO_PLAN_LIMITS,
  type Plan,
  type PlanId,
  planIsInForce,
  type SubscriptionStatus,
} from "../billing/plans";
import type { Database } from "../db/client";
import { apiKeys, plans, workspaces } from "../db/schema";

export interface Limits {
  concurrentJobs: number;
  activeJobs: number;
  apiAccess: boolean;
  webhooks: boolean;
  retentionDays: number;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  /** The plan in force, or null (no plan, or a subscription that ended). */
  plan: Plan | null;
  subscriptionStatus: SubscriptionStatus;
  currentPeriodEnd: number | null;
  cancelAtPeriodEnd: boolean;
  limits: Limits;
}

type WorkspaceRow = typeof workspaces.$inferSelect;
type PlanRow = typeof plans.$inferSelect;

export function toPlan(row: PlanRow): Plan {
  return {
    id: row.id as PlanId,
    name: row.name,
    monthlyCredits: row.monthlyCredits,
    concurrentJobs: row.concurrentJobs,
    activeJobs: row.activeJobs,
    apiAccess: row.apiAccess,
    webhooks: row.webhooks,
    retentionDays: row.retentionDays,
  };
}

export function toWorkspaceRecord(row: WorkspaceRow, planRow: PlanRow | null): WorkspaceRecord {
  const status = row.subscriptionStatus as SubscriptionStatus;
  const plan = planRow && planIsInForce(status) ? toPlan(planRow) : null;
  const { concurrentJobs, activeJobs, apiAccess, webhooks, retentionDays } = plan ?? NO_PLAN_LIMITS;
  return {
    id: row.id,
    name: row.name,
    plan,
    subscriptionStatus: status,
    currentPeriodEnd: row.currentPeriodEnd,
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    limits: { concurrentJobs, activeJobs, apiAccess, webhooks, retentionDays },
  };
}

export async function findWorkspace(db: Database, id: string): Promise<WorkspaceRecord | null> {
  const rows = await db
    .select()
    .from(workspaces)
    .leftJoin(plans, eq(workspaces.planId, plans.id))
    .where(eq(workspaces.id, id))
    .limit(1);
  const row = rows[0];
  return row ? toWorkspaceRecord(row.workspaces, row.plans) : null;
}

/** The live (not revoked) key with this hash, with its workspace and plan, in one query. */
export async function findKeyByHash(db: Database, keyHash: string) {
  const rows = await db
    .select()
    .from(apiKeys)
    .innerJoin(workspaces, eq(apiKeys.workspaceId, workspaces.id))
    .leftJoin(plans, eq(workspaces.planId, plans.id))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return { key: row.api_keys, workspace: toWorkspaceRecord(row.workspaces, row.plans) };
}

export async function listPlans(db: Database): Promise<Plan[]> {
  const rows = await db.select().from(plans).orderBy(plans.sortOrder);
  return rows.map(toPlan);
}
