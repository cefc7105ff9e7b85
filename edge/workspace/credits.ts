/** Credit balances, the ledger and per-job reservations, on the workspace object's SQLite storage. */
export interface Balances {
  plan: number;
  pack: number;
}

/**
 * The billing period credits are reserved in, named by the end of the period before it (0 until the
 * first renewal): `renewed_period_end` moves on at every renewal.
 */
function currentPeriod(sql: SqlStorage): number {
  return sql
    .exec<{ renewed_period_end: number }>("SELECT renewed_period_end FROM balances WHERE id = 1")
    .one().renewed_period_end;
}

export function readBalances(sql: SqlStorage): Balances {
  return sql.exec<{ plan: number; pack: number }>("SELECT plan, pack FROM balances WHERE id = 1").one();
}

export function record(
  sql: SqlStorage,
  reason: string,
  planDelta: number,
  packDelta: number,
  ref: string | null,
) {
  sql.exec(
    "INSERT INTO ledger (at, reason, plan_delta, pack_delta, ref) VALUES (?, ?, ?, ?, ?)",
    Date.now(),
    reason,
    planDelta,
    packDelta,
    ref,
  );
}

export function addCredits(sql: SqlStorage, plan: number, pack: number, reason: string): void {
  sql.exec("UPDATE balances SET plan = plan + ?, pack = pack + ? WHERE id = 1", plan, pack);
  record(sql, reason, plan, pack, null);
}

/**
 * Takes `credits` for a job, plan credits first (they expire), then pack credits. Returns false,
 * touching nothing, when the balance is short. Call inside a transaction.
 */
export function reserve(sql: SqlStorage, jobId: string, credits: number): boolean {
  const { plan, pack } = readBalances(sql);
  if (plan + pack < credits) return false;
  const planPart = Math.min(plan, credits);
  const packPart = credits - planPart;
  sql.exec("UPDATE balances SET plan = plan - ?, pack = pack - ? WHERE id = 1", planPart, packPart);
  sql.exec(
    "INSERT INTO reservations (job_id, plan_part, pack_part, state, created_at, period) VALUES (?, ?, ?, 'reserved', ?, ?)",
    jobId,
    planPart,
    packPart,
    Date.now(),
    currentPeriod(sql),
  );
  record(sql, "job_reserved", -planPart, -packPart, jobId);
  return true;
}

/**
 * Closes a job's reservation: `refunded` gives the credits back to the buckets they came from,
 * `settled` keeps them. Plan credits go back only to the period that reserved them: a renewal since
 * then has expired that period's plan credits, and returning them would carry them over. Only a
 * reservation still `reserved` changes, so a job is refunded at most once however often this is
 * called. Returns whether this call changed it.
 */
export function closeReservation(sql: SqlStorage, jobId: string, outcome: "settled" | "refunded"): boolean {
  const rows = sql
    .exec<{ plan_part: number; pack_part: number; period: number }>(
      "UPDATE reservations SET state = ?, closed_at = ? WHERE job_id = ? AND state = 'reserved' RETURNING plan_part, pack_part, period",
      outcome,
      Date.now(),
      jobId,
    )
    .toArray();
  const closed = rows[0];
  if (!closed) return false;
  if (outcome === "refunded") {
    const planBack = closed.period === currentPeriod(sql) ? closed.plan_part : 0;
    addCredits(sql, planBack, closed.pack_part, "job_refunded");
  }
  return true;
}
