import { eq } from "drizzle-orm";
import { database } from "../db/client";
import { workspaces } from "../db/schema";
import type { Env } from "../env";
import { findWorkspace } from "../services/workspaces";
import { enqueueDelivery } from "./delivery";
import { markSkipped, skipReason } from "./skip";

/**
 * Sends a stored event on its way: the first attempt goes on the webhooks queue at once when the
 * workspace has an enabled endpoint and a plan with webhooks; otherwise the event is marked skipped.
 * A failed queue send is logged, not thrown (the job's transition is already made): the event stays
 * pending with no attempt due, and the scheduled sweep sends it (sweep.ts).
 */
export async function publishEvent(
  env: Env,
  eventId: string,
  workspaceId: string,
  nowMs = Date.now(),
): Promise<void> {
  const db = database(env.DB);
  const workspace = await findWorkspace(db, workspaceId);
  const [row] = await db
    .select({ url: workspaces.webhookUrl, enabled: workspaces.webhookEnabled })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .limit(1);
  const reason = skipReason(workspace, row);
  if (reason !== null) {
    await markSkipped(db, eventId, reason);
    return;
  }
  try {
    await enqueueDelivery(env, { event_id: eventId, attempt: 1, not_before: nowMs }, nowMs);
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "warn",
        event: "webhook_enqueue_failed",
        event_id: eventId,
        error: String(error),
      }),
    );
  }
}
