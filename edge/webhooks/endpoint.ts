import { eq } from "drizzle-orm";
import { checkUrl, UrlNotAllowedError } from "../../shared-lib/url-policy";
import type { Database } from "../db/client";
import { workspaces } from "../db/schema";
import { type Env, isLocal } from "../env";
import { generateSigningSecret } from "../lib/api-keys";
import { ApiError } from "../lib/errors";
import { open, seal } from "../lib/secret-box";

type WorkspaceRow = typeof workspaces.$inferSelect;

/** How long the old secret keeps signing after a rotation, unless the caller says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 60 * 60;

/** Why the service switched an endpoint off: it answered 410 Gone, or failed for three days. */
export type DisabledReason = "gone" | "failing";

export interface WebhookEndpointView {
  object: "webhook_endpoint";
  url: string | null;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  signing_secret_prefix: string;
  previous_secret_expires_at: string | null;
}

async function workspaceRow(db: Database, workspaceId: string): Promise<WorkspaceRow> {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  if (!row) throw new ApiError("resource_not_found", `No workspace ${workspaceId}.`, "workspace");
  return row;
}

/** The endpoint as the API shows it: the secret itself only in the answers that set or rotate it. */
export async function endpointView(
  env: Env,
  row: WorkspaceRow,
  nowMs = Date.now(),
): Promise<WebhookEndpointView> {
  const overlapLive = row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > nowMs;
  const secret = await open(env.DATA_KEY, row.signingSecretSealed);
  return {
    object: "webhook_endpoint",
    url: row.webhookUrl,
    enabled: row.webhookEnabled && row.webhookUrl !== null,
    disabled_reason: row.webhookDisabledReason as DisabledReason | null,
    signing_secret_prefix: `${secret.slice(0, 10)}…`,
    previous_secret_expires_at: overlapLive
      ? new Date(row.previousSecretExpiresAt as number).toISOString()
      : null,
  };
}

/** Secrets that sign a delivery now: the current one, plus the previous one during a rotation's overlap. */
export async function signingSecrets(env: Env, row: WorkspaceRow, nowMs = Date.now()): Promise<string[]> {
  const secrets = [await open(env.DATA_KEY, row.signingSecretSealed)];
  if (row.previousSigningSecretSealed && (row.previousSecretExpiresAt ?? 0) > nowMs) {
    secrets.push(await open(env.DATA_KEY, row.previousSigningSecretSealed));
  }
  return secrets;
}

export async function readEndpoint(
  env: Env,
  db: Database,
  workspaceId: string,
): Promise<WebhookEndpointView> {
  return endpointView(env, await workspaceRow(db, workspaceId));
}

/** Receivers go through the same address policy as video_url (private addresses refused in production). */
export async function checkWebhookUrl(env: Env, url: string): Promise<string> {
  try {
    return (await checkUrl(url, { local: isLocal(env) })).toString();
  } catch (error) {
    if (error instanceof UrlNotAllowedError) throw new ApiError("url_not_allowed", error.message, "url");
    throw error;
  }
}

/** Sets the endpoint (and switches it on unless told otherwise); answers with the signing secret. */
export async function setEndpoint(env: Env, db: Database, workspaceId: string, url: string, enabled = true) {
  await workspaceRow(db, workspaceId);
  const checked = await checkWebhookUrl(env, url);
  const [row] = await db
    .update(workspaces)
    .set({
      webhookUrl: checked,
      webhookEnabled: enabled,
      webhookDisabledReason: null,
      webhookFailingSince: null,
    })
    .where(eq(workspaces.id, workspaceId))
    .returning();
  const saved = row as WorkspaceRow;
  return {
    ...(await endpointView(env, saved)),
    signing_secret: await open(env.DATA_KEY, saved.signingSecretSealed),
  };
}

/**
 * A new signing secret; the old one keeps signing (as a second v1) for `overlapSeconds`, so
 * receivers can switch without missing a delivery.
 */
export async function rotateSecret(env: Env, db: Database, workspaceId: string, overlapSeconds: number) {
  const current = await workspaceRow(db, workspaceId);
  const secret = generateSigningSecret();
  const [row] = await db
    .update(workspaces)
    .set({
      signingSecretSealed: await seal(env.DATA_KEY, secret),
      previousSigningSecretSealed: overlapSeconds > 0 ? current.signingSecretSealed : null,
      previousSecretExpiresAt: overlapSeconds > 0 ? Date.now() + overlapSeconds * 1000 : null,
    })
    .where(eq(workspaces.id, workspaceId))
    .returning();
  return { ...(await endpointView(env, row as WorkspaceRow)), signing_secret: secret };
}
