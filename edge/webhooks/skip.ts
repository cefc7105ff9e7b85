import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { events } from "../db/schema";
import type { WorkspaceRecord } from "../services/workspaces";

/**
 * Why an event is not sent to the workspace's endpoint (shown with its `skipped` delivery), or null
 * when it is sent: the plan has webhooks and an endpoint is set and on.
 */
export function skipReason(
  workspace: WorkspaceRecord | null | undefined,
  endpoint: { url: string | null; enabled: boolean } | undefined,
): string | null {
  if (!workspace?.limits.webhooks) return "the workspace's plan has no webhooks";
  if (!endpoint?.url) return "no endpoint was set when the event happened";
  if (!endpoint.enabled) return "the endpoint was switched off";
  return null;
}

export async function markSkipped(db: Database, eventId: string, reason: string): Promise<void> {
  await db
    .update(events)
    .set({ deliveryStatus: "skipped", deliveryLastError: reason, deliveryNextAttemptAt: null })
    .where(eq(events.id, eventId));
}
