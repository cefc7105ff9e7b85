import type { ErrorCode } from "../lib/errors";

/** Idempotency-Key answers, kept 24 hours (spec, Limits), on the workspace object's SQLite storage. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredAnswer {
  fingerprint: string;
  status: number;
  body: string;
}

export function findAnswer(sql: SqlStorage, scope: string, key: string, nowMs: number): StoredAnswer | null {
  const rows = sql
    .exec<{ fingerprint: string; status: number; body: string }>(
      "SELECT fingerprint, status, body FROM idempotency WHERE scope = ? AND key = ? AND expires_at > ?",
      scope,
      key,
      nowMs,
    )
    .toArray();
  return rows[0] ?? null;
}

/** Stores an answer unless a live one exists for the key; returns the answer that is kept. */
export function keepAnswer(sql: SqlStorage, scope: string, key: string, answer: StoredAnswer, nowMs: number) {
  sql.exec(
    `INSERT INTO idempotency (scope, key, fingerprint, status, body, expires_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
       body = excluded.body, expires_at = excluded.expires_at WHERE idempotency.expires_at <= ?`,
    scope,
    key,
    answer.fingerprint,
    answer.status,
    answer.body,
    nowMs + IDEMPOTENCY_TTL_MS,
    nowMs,
  );
  return findAnswer(sql, scope, key, nowMs) ?? answer;
}

export interface IdempotencyRequest {
  scope: string;
  key: string;
  fingerprint: string;
}

/** What a create call answers: the HTTP status and body to send, or an API error to raise. */
export type CreateOutcome =
  | { ok: true; status: number; body: string; replayed: boolean }
  | { ok: false; code: ErrorCode; message: string; param?: string; retryAfter?: number };

/** A kept answer replays for the same body; another body under the same key is a conflict. */
export function replayOrConflict(kept: StoredAnswer, fingerprint: string): CreateOutcome {
  if (kept.fingerprint !== fingerprint) {
    return {
      ok: false,
      code: "idempotency_conflict",
      message: "This Idempotency-Key was used with a different request body.",
      param: "Idempotency-Key",
    };
  }
  return { ok: true, status: kept.status, body: kept.body, replayed: true };
}
