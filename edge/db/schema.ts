import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Times are Unix milliseconds (integers); booleans are 0/1 integers.

export const plans = sqliteTable("plans", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  monthlyCredits: integer("monthly_credits").notNull(),
  concurrentJobs: integer("concurrent_jobs").notNull(),
  activeJobs: integer("active_jobs").notNull(),
  apiAccess: integer("api_access", { mode: "boolean" }).notNull(),
  webhooks: integer("webhooks", { mode: "boolean" }).notNull(),
  retentionDays: integer("retention_days").notNull(),
  sortOrder: integer("sort_order").notNull(),
});

export const workspaces = sqliteTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    planId: text("plan_id").references(() => plans.id),
    subscriptionStatus: text("subscription_status").notNull().default("none"),
    currentPeriodEnd: integer("current_period_end"),
    cancelAtPeriodEnd: integer("cancel_at_period_end", { mode: "boolean" }).notNull().default(false),
    webhookUrl: text("webhook_url"),
    webhookEnabled: integer("webhook_enabled", { mode: "boolean" }).notNull().default(true),
    /** The webhook signing secret, sealed with DATA_KEY (lib/secret-box). */
    signingSecretSealed: text("signing_secret_sealed").notNull(),
    /** After a rotation, the old secret still signs deliveries (a second v1) until it expires. */
    previousSigningSecretSealed: text("previous_signing_secret_sealed"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    /** Why the service switched the endpoint off: "gone" (410) or "failing" (three days of failures). */
    webhookDisabledReason: text("webhook_disabled_reason"),
    /** Start of the current run of failed deliveries; cleared by any success. */
    webhookFailingSince: integer("webhook_failing_since"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("workspaces_renewal").on(table.currentPeriodEnd)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    /** SHA-256 (hex) of the whole key: the key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** The first characters of the key, shown in the dashboard to tell keys apart. */
    prefix: text("prefix").notNull(),
    name: text("name").notNull().default(""),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (table) => [index("api_keys_workspace").on(table.workspaceId, sql`${table.createdAt} desc`)],
);

export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    /** R2 key of the file: uploads/<workspace>/<upload id>. */
    objectKey: text("object_key").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    receivedAt: integer("received_at"),
    /** The job this upload backs; set once (409 upload_already_used after that). */
    jobId: text("job_id"),
    /** When the retention sweep deleted the file (migration 0005). */
    purgedAt: integer("purged_at"),
  },
  (table) => [
    index("uploads_workspace").on(table.workspaceId, table.createdAt),
    index("uploads_retention").on(table.purgedAt, table.receivedAt),
  ],
);

export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    status: text("status").notNull(),
    stage: text("stage"),
    progress: real("progress").notNull().default(0),
    source: text("source").notNull(),
    uploadId: text("upload_id"),
    videoUrl: text("video_url"),
    filename: text("filename").notNull(),
    durationSeconds: real("duration_seconds").notNull(),
    width: integer("width"),
    height: integer("height"),
    sizeBytes: integer("size_bytes"),
    credits: integer("credits").notNull(),
    creditsRefunded: integer("credits_refunded", { mode: "boolean" }).notNull().default(false),
    /** JSON array of the exact texts to erase, or null for automatic reading. */
    texts: text("texts"),
    /** JSON array of the areas to erase whole (edge/schemas/regions.ts), or null for none. */
    regions: text("regions"),
    /** JSON object of string to string. */
    metadata: text("metadata").notNull().default("{}"),
    resultKey: text("result_key"),
    resultSizeBytes: integer("result_size_bytes"),
    /** JSON of what the engine did (contract/report.ts), set when the job succeeds. */
    report: text("report"),
    /** The before/after JPEG, stored and deleted with the result. */
    pictureKey: text("picture_key"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    attempts: integer("attempts").notNull().default(0),
    leaseOwner: text("lease_owner"),
    /** The current claim's secret: every later call of the worker must present it. */
    leaseToken: text("lease_token"),
    leaseExpiresAt: integer("lease_expires_at"),
    /** When the running job last moved (claim, new stage, higher progress): heartbeats alone do not. */
    progressedAt: integer("progressed_at"),
    /** The queue send of its message failed: the reaper sends it again. */
    dispatchPending: integer("dispatch_pending", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    index("jobs_workspace_created").on(table.workspaceId, table.createdAt, table.id),
    index("jobs_workspace_status").on(table.workspaceId, table.status, table.createdAt),
    index("jobs_lease").on(table.status, table.leaseExpiresAt),
    index("jobs_retention").on(table.status, table.finishedAt),
  ],
);

export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    type: text("type").notNull(),
    jobId: text("job_id"),
    /** The WebhookEvent body as delivered, JSON. */
    payload: text("payload").notNull(),
    createdAt: integer("created_at").notNull(),
    /** pending, delivered, failed (every attempt used or the endpoint switched off), skipped (no endpoint). */
    deliveryStatus: text("delivery_status").notNull().default("pending"),
    deliveryAttempts: integer("delivery_attempts").notNull().default(0),
    deliveredAt: integer("delivered_at"),
    /** When the attempt on the webhooks queue is due; null while none is known to be there. */
    nextAttemptAt: integer("next_attempt_at"),
    /** Why the delivery is not done: the last attempt's failure, or why it was skipped; null once delivered. */
    deliveryLastError: text("delivery_last_error"),
    /** When the next attempt is due, while one is scheduled after a failure; else null. */
    deliveryNextAttemptAt: integer("delivery_next_attempt_at"),
  },
  (table) => [
    index("events_workspace_created").on(table.workspaceId, table.createdAt),
    // Exactly one terminal event per job and type.
    uniqueIndex("events_job_type").on(table.jobId, table.type),
    // The scheduled sweep's read: pending events whose attempt is not on the queue.
    index("events_delivery_due").on(table.deliveryStatus, table.nextAttemptAt),
  ],
);

/** One row per delivery attempt of an event (the dashboard's and the API's delivery log). */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    workspaceId: text("workspace_id").notNull(),
    attempt: integer("attempt").notNull(),
    url: text("url").notNull(),
    /** HTTP status of the answer, or null when none came (timeout, connection error, refused address). */
    responseStatus: integer("response_status"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("webhook_attempts_event").on(table.eventId, table.createdAt)],
);

/** People who sign in to the dashboard; each owns one workspace. */
export const owners = sqliteTable(
  "owners",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    /** Lower-cased; one owner per address across the service, so sign-in needs no workspace id. */
    email: text("email").notNull().unique(),
    /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` (dashboard/passwords), never the password. */
    passwordHash: text("password_hash").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("owners_workspace").on(table.workspaceId)],
);

/** Dashboard sessions: only the SHA-256 of the cookie's token is kept. */
export const ownerSessions = sqliteTable(
  "owner_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    workspaceId: text("workspace_id").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("owner_sessions_expires").on(table.expiresAt)],
);

/** One-time sign-in links made by the admin CLI: the SHA-256 of the token, used at most once. */
export const ownerSignInLinks = sqliteTable("owner_sign_in_links", {
  tokenHash: text("token_hash").primaryKey(),
  ownerId: text("owner_id")
    .notNull()
    .references(() => owners.id),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
});
