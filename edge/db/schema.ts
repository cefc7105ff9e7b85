import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
