/**
 * Storage of the workspace Durable Object (its own SQLite database), as numbered migrations applied
 * in order. A new change is a new entry at the end; an entry, once deployed, never changes.
 */
export interface WorkspaceMigration {
  version: number;
  /** What it changes, for the reader. */
  change: string;
  apply(sql: SqlStorage): void;
}

export const WORKSPACE_MIGRATIONS: readonly WorkspaceMigration[] = [
  {
    version: 1,
    change: "balances, ledger, reservations, rate windows and idempotency records",
    // IF NOT EXISTS: objects made before migrations were numbered already have these tables.
    apply: (sql) =>
      sql.exec(`
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
          closed_at INTEGER
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
      `),
  },
  {
    version: 2,
    change: "reservations.period: the plan period a reservation was taken in",
    apply: (sql) => {
      // Objects made before migrations were numbered may have the column already.
      const hasPeriod = sql
        .exec("SELECT name FROM pragma_table_info('reservations') WHERE name = 'period'")
        .toArray();
      if (hasPeriod.length > 0) return;
      // Reservations made before periods were recorded are taken as the current period's (the
      // customer keeps their plan share on a refund, as before).
      sql.exec("ALTER TABLE reservations ADD COLUMN period INTEGER NOT NULL DEFAULT 0");
      sql.exec("UPDATE reservations SET period = (SELECT renewed_period_end FROM balances WHERE id = 1)");
    },
  },
];

/**
 * Applies, in order, every migration newer than the object's recorded version, each with its
 * version bump in one transaction. Run inside blockConcurrencyWhile, before the object serves.
 */
export function migrateWorkspace(
  storage: Pick<DurableObjectStorage, "sql" | "transactionSync">,
  migrations: readonly WorkspaceMigration[] = WORKSPACE_MIGRATIONS,
): number {
  const { sql } = storage;
  sql.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
  )`);
  sql.exec("INSERT OR IGNORE INTO schema_version (id, version) VALUES (1, 0)");
  let version = sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
  for (const migration of migrations) {
    if (migration.version <= version) continue;
    storage.transactionSync(() => {
      migration.apply(sql);
      sql.exec("UPDATE schema_version SET version = ?", migration.version);
    });
    version = migration.version;
  }
  return version;
}
