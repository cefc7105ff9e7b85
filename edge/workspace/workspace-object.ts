import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { decide, type RateDecision, WINDOW_MS, windowStart } from "./rate-limit";
import { WORKSPACE_SCHEMA } from "./schema";

export interface Balances {
  plan: number;
  pack: number;
}

export interface StoredAnswer {
  fingerprint: string;
  status: number;
  body: string;
}

/** Idempotency-Key answers are kept this long (spec, Limits). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * One per workspace (and one per client address for unauthenticated traffic, which uses only the
 * rate windows). It is the only writer of credits and idempotency records: each call runs alone
 * against its SQLite storage, so two requests can never spend the same credits twice.
 */
export class WorkspaceObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      this.sql.exec(WORKSPACE_SCHEMA);
    });
  }

  /** Counts one request in its window and says whether it may go on. */
  hit(bucket: string, limit: number, nowMs = Date.now()): RateDecision {
    const start = windowStart(nowMs);
    const row = this.sql
      .exec<{ count: number }>(
        `INSERT INTO rate_windows (bucket, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (bucket) DO UPDATE SET
           count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END,
           window_start = excluded.window_start
         RETURNING count`,
        bucket,
        start,
      )
      .one();
    this.ensureAlarm(start + 2 * WINDOW_MS);
    return decide(row.count, limit, start, nowMs);
  }

  balances(): Balances {
    return this.sql
      .exec<{ plan: number; pack: number }>("SELECT plan, pack FROM balances WHERE id = 1")
      .one();
  }

  /** Adds credits (admin grants, purchases). Amounts are whole and not negative. */
  grant(amounts: Partial<Balances>, reason: string): Balances {
    const plan = amounts.plan ?? 0;
    const pack = amounts.pack ?? 0;
    if (!Number.isSafeInteger(plan) || !Number.isSafeInteger(pack) || plan < 0 || pack < 0) {
      throw new RangeError("credit amounts must be whole numbers of at least 0");
    }
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("UPDATE balances SET plan = plan + ?, pack = pack + ? WHERE id = 1", plan, pack);
      this.record(reason, plan, pack, null);
    });
    return this.balances();
  }

  /**
   * Starts a new billing period: unused plan credits expire and `grant` plan credits take their
   * place. Keyed by the period end it closes, so a repeated call for the same period does nothing.
   */
  renewPlan(closedPeriodEnd: number, grant: number): { renewed: boolean; balances: Balances } {
    const renewed = this.ctx.storage.transactionSync(() => {
      const { plan, renewed_period_end } = this.sql
        .exec<{ plan: number; renewed_period_end: number }>(
          "SELECT plan, renewed_period_end FROM balances WHERE id = 1",
        )
        .one();
      if (renewed_period_end >= closedPeriodEnd) return false;
      this.sql.exec(
        "UPDATE balances SET plan = ?, renewed_period_end = ? WHERE id = 1",
        grant,
        closedPeriodEnd,
      );
      this.record("plan_renewal", grant - plan, 0, String(closedPeriodEnd));
      return true;
    });
    return { renewed, balances: this.balances() };
  }

  /** The answer stored for an Idempotency-Key, if one is still kept. */
  storedAnswer(scope: string, key: string, nowMs = Date.now()): StoredAnswer | null {
    const rows = this.sql
      .exec<{ fingerprint: string; status: number; body: string }>(
        "SELECT fingerprint, status, body FROM idempotency WHERE scope = ? AND key = ? AND expires_at > ?",
        scope,
        key,
        nowMs,
      )
      .toArray();
    return rows[0] ?? null;
  }

  /** Keeps an answer for 24 hours; the first answer stored for a key wins. */
  storeAnswer(scope: string, key: string, answer: StoredAnswer, nowMs = Date.now()): StoredAnswer {
    const expiresAt = nowMs + IDEMPOTENCY_TTL_MS;
    this.sql.exec(
      `INSERT INTO idempotency (scope, key, fingerprint, status, body, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
         body = excluded.body, expires_at = excluded.expires_at WHERE idempotency.expires_at <= ?`,
      scope,
      key,
      answer.fingerprint,
      answer.status,
      answer.body,
      expiresAt,
      nowMs,
    );
    this.ensureAlarm(expiresAt);
    return this.storedAnswer(scope, key, nowMs) ?? answer;
  }

  /** Purges expired idempotency records and idle rate windows, then sleeps until the next expiry. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.sql.exec("DELETE FROM idempotency WHERE expires_at <= ?", now);
    this.sql.exec("DELETE FROM rate_windows WHERE window_start < ?", windowStart(now) - WINDOW_MS);
    const next = this.sql
      .exec<{ at: number | null }>(
        "SELECT MIN(at) AS at FROM (SELECT MIN(expires_at) AS at FROM idempotency UNION ALL SELECT MIN(window_start) + ? FROM rate_windows)",
        2 * WINDOW_MS,
      )
      .one();
    if (next.at !== null) await this.ctx.storage.setAlarm(Math.max(next.at, now + 1000));
  }

  private record(reason: string, planDelta: number, packDelta: number, ref: string | null): void {
    this.sql.exec(
      "INSERT INTO ledger (at, reason, plan_delta, pack_delta, ref) VALUES (?, ?, ?, ?, ?)",
      Date.now(),
      reason,
      planDelta,
      packDelta,
      ref,
    );
  }

  /** Sets the alarm unless an earlier one is already pending. */
  private ensureAlarm(at: number): void {
    this.ctx.waitUntil(
      (async () => {
        const current = await this.ctx.storage.getAlarm();
        if (current === null || current > at) await this.ctx.storage.setAlarm(at);
      })(),
    );
  }
}
