import { and, inArray, lte } from "drizzle-orm";
import { planRenews, type SubscriptionStatus } from "../billing/plans";
import { database } from "../db/client";
import { workspaces } from "../db/schema";
import type { Env } from "../env";
import { workspaceObject } from "../workspace/stub";
import { addOneMonth, changeSubscription } from "./provisioning";
import { findWorkspace } from "./workspaces";

const BATCH = 100;

/**
 * The scheduled task that closes billing periods whose end has passed. For each workspace:
 * unused plan credits expire; `active` and `trialing` get the plan's monthly credits again and a
 * new period (`trialing` becomes `active`); `past_due` gets none until it is active again;
 * `cancel_at_period_end` ends the plan (status `canceled`). Pack credits are never touched.
 * The Durable Object keys the renewal by the closed period, so a rerun after a crash is harmless.
 */
export async function renewDuePlans(env: Env, nowMs: number): Promise<{ renewed: number }> {
  const db = database(env.DB);
  const due = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(
      and(
        lte(workspaces.currentPeriodEnd, nowMs),
        inArray(workspaces.subscriptionStatus, ["active", "trialing", "past_due"]),
      ),
    )
    .limit(BATCH);
  for (const { id } of due) {
    const workspace = await findWorkspace(db, id);
    if (!workspace?.currentPeriodEnd) continue;
    const closed = workspace.currentPeriodEnd;
    const ending = workspace.cancelAtPeriodEnd;
    const status: SubscriptionStatus = workspace.subscriptionStatus;
    const grant = !ending && planRenews(status) && workspace.plan ? workspace.plan.monthlyCredits : 0;
    await workspaceObject(env, id).renewPlan(closed, grant);
    await changeSubscription(
      db,
      id,
      ending
        ? { status: "canceled", planId: null, currentPeriodEnd: null, cancelAtPeriodEnd: false }
        : {
            status: status === "trialing" ? "active" : status,
            currentPeriodEnd: nextPeriodEnd(closed, nowMs),
          },
    );
  }
  return { renewed: due.length };
}

/** The first period end after now, so a workspace that missed several periods catches up at once. */
function nextPeriodEnd(closed: number, nowMs: number): number {
  let end = addOneMonth(closed);
  while (end <= nowMs) end = addOneMonth(end);
  return end;
}
