import { and, eq, gte, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { jobs } from "../db/schema";
import type { WorkspaceRecord } from "../services/workspaces";

/** Start of the billing period: one calendar month before its end, or the calendar month without a plan. */
export function periodStart(workspace: WorkspaceRecord, nowMs = Date.now()): number {
  if (workspace.currentPeriodEnd !== null) {
    const start = new Date(workspace.currentPeriodEnd);
    start.setUTCMonth(start.getUTCMonth() - 1);
    return start.getTime();
  }
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
}

/** End of the billing period: current_period_end, or the end of the calendar month without a plan. */
export function periodEnd(workspace: WorkspaceRecord, nowMs = Date.now()): number {
  if (workspace.currentPeriodEnd !== null) return workspace.currentPeriodEnd;
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
}

/** Jobs created this period, and the credits they spent (refunded jobs spend none). */
export async function periodUsage(db: Database, workspace: WorkspaceRecord) {
  const since = periodStart(workspace);
  const [row] = await db
    .select({
      jobs: sql<number>`count(*)`,
      credits: sql<number>`coalesce(sum(case when ${jobs.creditsRefunded} then 0 else ${jobs.credits} end), 0)`,
    })
    .from(jobs)
    .where(and(eq(jobs.workspaceId, workspace.id), gte(jobs.createdAt, since)));
  return {
    period_start: new Date(since).toISOString(),
    period_end: new Date(periodEnd(workspace)).toISOString(),
    jobs: row?.jobs ?? 0,
    credits_spent: row?.credits ?? 0,
  };
}
