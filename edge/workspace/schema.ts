/** Storage of the workspace Durable Object (its own SQLite database). */
export const WORKSPACE_SCHEMA = `
CREATE TABLE IF NOT EXISTS balances (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  plan INTEGER NOT NULL DEFAULT 0 CHECK (plan >= 0),
  pack INTEGER NOT NULL DEFAULT 0 CHECK (pack >= 0),
  renewed_period_end INTEGER NOT NULL DEFAULT 0
);
INSERT OR IGNORE INTO balances (id) VALUES (1);
CREATE TABLE IF NOT EXISTS ledger (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  reason TEXT NOT NULL,
  plan_delta INTEGER NOT NULL,
  pack_delta INTEGER NOT NULL,
  ref TEXT
);
CREATE TABLE IF NOT EXISTS reservations (
  job_id TEXT PRIMARY KEY,
  plan_part INTEGER NOT NULL,
  pack_part INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'refunded')),
  created_at INTEGER NOT NULL,
  closed_at INTEGER,
  period INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS rate_windows (
  bucket TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at);
`;

/**
 * Brings an object made before a column existed up to WORKSPACE_SCHEMA (CREATE TABLE IF NOT EXISTS
 * leaves an existing table as it was). Run after WORKSPACE_SCHEMA, inside blockConcurrencyWhile.
 */
export function upgradeWorkspaceSchema(sql: SqlStorage): void {
  const hasPeriod = sql
    .exec<{ name: string }>("SELECT name FROM pragma_table_info('reservations') WHERE name = 'period'")
    .toArray();
  if (hasPeriod.length > 0) return;
  // Reservations made before periods were recorded are taken as the current period's (the
  // customer keeps their plan share on a refund, as before).
  sql.exec("ALTER TABLE reservations ADD COLUMN period INTEGER NOT NULL DEFAULT 0");
  sql.exec("UPDATE reservations SET period = (SELECT renewed_period_end FROM balances WHERE id = 1)");
}
