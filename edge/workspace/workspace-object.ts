import { DurableObject } from "cloudflare:workers";
import { and, eq, inArray, isNull, sql as sqlTag } from "drizzle-orm";
import { ACTIVE_STATUSES } from "../../contract/job-states";
import { database } from "../db/client";
import { jobs, uploads } from "../db/schema";
import type { Env } from "../env";
import { dispatchJob } from "../queues/job-dispatch";
import { addCredits, type Balances, closeReservation, readBalances, record, reserve } from "./credits";
import {
  type CreateOutcome,
  findAnswer,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRequest,
  keepAnswer,
  replayOrConflict,
  type StoredAnswer,
} from "./idempotency";
import { decide, type RateDecision, WINDOW_MS, windowStart } from "./rate-limit";
import { migrateWorkspace } from "./schema";

export type { Balances } from "./credits";
export { type CreateOutcome, IDEMPOTENCY_TTL_MS, type IdempotencyRequest } from "./idempotency";

export interface JobDraft {
  row: typeof jobs.$inferInsert;
  /** The 201 answer (the Job as JSON), kept for Idempotency-Key replays. */
  body: string;
  activeJobsLimit: number;
}

/**
 * One per workspace (and one per client address for unauthenticated traffic, which uses only the
 * rate windows). It is the only writer of credits and idempotency records. Creations run one at a
 * time through `serially`, so their checks (idempotency, upload reuse, active jobs, balance) and
 * their writes cannot interleave: two requests can never spend the same credits or key twice.
 */
export class WorkspaceObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      migrateWorkspace(ctx.storage);
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
    return readBalances(this.sql);
  }

  /** Adds credits (admin grants, purchases). Amounts are whole and not negative. */
  grant(amounts: Partial<Balances>, reason: string): Balances {
    const plan = amounts.plan ?? 0;
    const pack = amounts.pack ?? 0;
    if (!Number.isSafeInteger(plan) || !Number.isSafeInteger(pack) || plan < 0 || pack < 0) {
      throw new RangeError("credit amounts must be whole numbers of at least 0");
    }
    this.ctx.storage.transactionSync(() => addCredits(this.sql, plan, pack, reason));
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
      record(this.sql, "plan_renewal", grant - plan, 0, String(closedPeriodEnd));
      return true;
    });
    return { renewed, balances: this.balances() };
  }

  /** The answer stored for an Idempotency-Key, if one is still kept. */
  storedAnswer(scope: string, key: string, nowMs = Date.now()): StoredAnswer | null {
    return findAnswer(this.sql, scope, key, nowMs);
  }

  /** Keeps an answer for 24 hours; the first answer stored for a key wins. */
  storeAnswer(scope: string, key: string, answer: StoredAnswer, nowMs = Date.now()): StoredAnswer {
    const kept = keepAnswer(this.sql, scope, key, answer, nowMs);
    this.ensureAlarm(nowMs + IDEMPOTENCY_TTL_MS);
    return kept;
  }

  /** Records an upload slot (POST /v1/uploads). */
  createUpload(row: typeof uploads.$inferInsert, body: string, idempotency?: IdempotencyRequest) {
    return this.serially(idempotency, async () => {
      await database(this.env.DB).insert(uploads).values(row);
      return { ok: true, status: 201, body, replayed: false };
    });
  }

  /**
   * Creates a job (POST /v1/jobs): checks the upload is unused and the active-jobs limit, reserves
   * the credits, writes the job row and sends the job on the queue. A failed write gives the
   * credits back at once.
   */
  createJob(draft: JobDraft, idempotency?: IdempotencyRequest) {
    return this.serially(idempotency, async (): Promise<CreateOutcome> => {
      const db = database(this.env.DB);
      const { row } = draft;
      if (row.uploadId) {
        const used = await db
          .select({ jobId: uploads.jobId })
          .from(uploads)
          .where(eq(uploads.id, row.uploadId))
          .limit(1);
        if (used[0]?.jobId) {
          return {
            ok: false,
            code: "upload_already_used",
            message: "This upload already backs a job.",
            param: "upload_id",
          };
        }
      }
      const [active] = await db
        .select({ count: sqlTag<number>`count(*)` })
        .from(jobs)
        .where(and(eq(jobs.workspaceId, row.workspaceId), inArray(jobs.status, ACTIVE_STATUSES)));
      if ((active?.count ?? 0) >= draft.activeJobsLimit) {
        return {
          ok: false,
          code: "rate_limited",
          message: `The workspace has ${draft.activeJobsLimit} unfinished jobs, the most its plan allows. Retry when one finishes.`,
          retryAfter: 30,
        };
      }
      const reserved = this.ctx.storage.transactionSync(() => reserve(this.sql, row.id, row.credits));
      if (!reserved) {
        const { plan, pack } = readBalances(this.sql);
        return {
          ok: false,
          code: "insufficient_credits",
          message: `This video costs ${row.credits} credits and the workspace has ${plan + pack}.`,
        };
      }
      try {
        const claimUpload = row.uploadId
          ? [
              db
                .update(uploads)
                .set({ jobId: row.id })
                .where(and(eq(uploads.id, row.uploadId), isNull(uploads.jobId))),
            ]
          : [];
        await db.batch([db.insert(jobs).values(row), ...claimUpload]);
      } catch (error) {
        this.ctx.storage.transactionSync(() => closeReservation(this.sql, row.id, "refunded"));
        throw error;
      }
      await dispatchJob(this.env, { job_id: row.id, workspace_id: row.workspaceId });
      return { ok: true, status: 201, body: draft.body, replayed: false };
    });
  }

  /** Returns a failed or canceled job's credits; true only for the call that did it. */
  refundJob(jobId: string): boolean {
    return this.ctx.storage.transactionSync(() => closeReservation(this.sql, jobId, "refunded"));
  }

  /** Keeps a succeeded job's credits for good. */
  settleJob(jobId: string): boolean {
    return this.ctx.storage.transactionSync(() => closeReservation(this.sql, jobId, "settled"));
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

  /**
   * Runs creations one at a time. With an Idempotency-Key, a kept answer is replayed (or refused as
   * a conflict when the body differs) and a new 2xx answer is kept; errors are not kept, so a retry
   * after fixing the cause (adding credits, say) can succeed.
   */
  private serially(
    idempotency: IdempotencyRequest | undefined,
    work: () => Promise<CreateOutcome>,
  ): Promise<CreateOutcome> {
    const run = async (): Promise<CreateOutcome> => {
      if (idempotency) {
        const kept = findAnswer(this.sql, idempotency.scope, idempotency.key, Date.now());
        if (kept) return replayOrConflict(kept, idempotency.fingerprint);
      }
      const outcome = await work();
      if (idempotency && outcome.ok) {
        this.storeAnswer(idempotency.scope, idempotency.key, {
          fingerprint: idempotency.fingerprint,
          status: outcome.status,
          body: outcome.body,
        });
      }
      return outcome;
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
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
