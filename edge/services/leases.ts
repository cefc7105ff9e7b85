import { eq } from "drizzle-orm";
import { isTerminal, RUNNING_STATUSES, statusForStage, type WorkerStage } from "../../contract/job-states";
import type { ClaimedJob, Region } from "../../contract/worker-api";
import { edgeConfig } from "../config";
import { database } from "../db/client";
import { jobs } from "../db/schema";
import type { Env } from "../env";
import { randomToken } from "../lib/ids";
import type { MediaStorage } from "../storage/media-storage";
import { type JobRow, jobInput } from "./job-view";
import { findWorkspace } from "./workspaces";

/** A claim holds a job this long (LEASE_SECONDS, default 60); every progress report (a heartbeat) extends it. */
function leaseMs(env: Env): number {
  return edgeConfig(env).LEASE_SECONDS * 1000;
}
/**
 * A running job whose stage and progress have not moved for this long (LEASE_STALL_SECONDS, default
 * 300) stops getting its lease extended: heartbeats alone cannot hold a worker slot for ever.
 */
function stallMs(env: Env): number {
  return edgeConfig(env).LEASE_STALL_SECONDS * 1000;
}
/** The running statuses as an SQL list, for the statements below. */
const RUNNING_SQL = RUNNING_STATUSES.map((status) => `'${status}'`).join(", ");

/** Runs of one job before it fails for good (first try and two retries). */
export const MAX_ATTEMPTS = 3;

export type ClaimRefusal = "not_found" | "finished" | "leased" | "workspace_busy";

export type ClaimResult = { ok: true; row: JobRow } | { ok: false; reason: ClaimRefusal };

/**
 * Gives a queued job to one worker. The single UPDATE checks the job is still queued and that the
 * workspace runs fewer than its plan's concurrent_jobs, so two workers can never hold one job and
 * a workspace never runs more jobs at once than its plan allows. Each claim gets a new lease token:
 * every later call about the job must present it, so a stalled worker whose job was claimed again
 * (even by a worker of the same name) can no longer report, store a result or complete it.
 */
export async function claimJob(env: Env, jobId: string, workerId: string): Promise<ClaimResult> {
  const db = database(env.DB);
  const [job] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) return { ok: false, reason: "not_found" };
  if (isTerminal(job.status)) return { ok: false, reason: "finished" };
  if (job.status !== "queued") return { ok: false, reason: "leased" };
  const workspace = await findWorkspace(db, job.workspaceId);
  const limit = workspace?.limits.concurrentJobs ?? 1;
  const now = Date.now();
  const claimed = await env.DB.prepare(
    `UPDATE jobs SET status = 'analyzing', stage = 'preparing', lease_owner = ?1, lease_token = ?6,
       lease_expires_at = ?2, progressed_at = ?3, attempts = attempts + 1,
       started_at = COALESCE(started_at, ?3), updated_at = ?3
     WHERE id = ?4 AND status = 'queued'
       AND (SELECT count(*) FROM jobs AS running WHERE running.workspace_id = jobs.workspace_id
            AND running.status IN (${RUNNING_SQL})) < ?5
     RETURNING id`,
  )
    .bind(workerId, now + leaseMs(env), now, jobId, limit, randomToken(32))
    .first<{ id: string }>();
  const [after] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (claimed && after) return { ok: true, row: after };
  if (!after || isTerminal(after.status)) return { ok: false, reason: "finished" };
  return { ok: false, reason: after.status === "queued" ? "workspace_busy" : "leased" };
}

export type ProgressResult =
  | { ok: true; canceled: false; leaseExpiresAt: number }
  | { ok: true; canceled: true }
  | { ok: false; reason: "lease_lost" | "not_found" };

/**
 * A worker's progress report and heartbeat: stage and status follow the report, progress never
 * goes down. The lease is extended only while the job moves: a report with a new stage or a higher
 * progress marks it moved, and the lease never reaches past the last move plus the stall limit. A
 * lease that has run out is not revived (the reaper retries the job). The answer tells the worker
 * when the job was canceled.
 */
export async function reportProgress(
  env: Env,
  jobId: string,
  leaseToken: string,
  stage: WorkerStage,
  progress: number,
): Promise<ProgressResult> {
  const now = Date.now();
  // SET expressions read the row as it was before this UPDATE.
  const updated = await env.DB.prepare(
    `UPDATE jobs SET stage = ?1, status = ?2, progress = MAX(progress, ?3),
       progressed_at = CASE WHEN stage IS NOT ?1 OR ?3 > progress THEN ?4 ELSE progressed_at END,
       lease_expires_at = MIN(?4 + ?5, (CASE WHEN stage IS NOT ?1 OR ?3 > progress THEN ?4 ELSE progressed_at END) + ?6),
       updated_at = ?4
     WHERE id = ?7 AND lease_token = ?8 AND status IN (${RUNNING_SQL}) AND lease_expires_at >= ?4
     RETURNING lease_expires_at AS leaseExpiresAt`,
  )
    .bind(stage, statusForStage(stage), progress, now, leaseMs(env), stallMs(env), jobId, leaseToken)
    .first<{ leaseExpiresAt: number }>();
  if (updated) return { ok: true, canceled: false, leaseExpiresAt: updated.leaseExpiresAt };
  const [job] = await database(env.DB)
    .select({ status: jobs.status })
    .from(jobs)
    .where(eq(jobs.id, jobId))
    .limit(1);
  if (!job) return { ok: false, reason: "not_found" };
  if (job.status === "canceled") return { ok: true, canceled: true };
  return { ok: false, reason: "lease_lost" };
}

/** Everything a worker needs to run a claimed job; an upload is handed over as a presigned GET. */
export async function claimedJobView(
  row: JobRow,
  storage: MediaStorage,
  objectKey: string | null,
): Promise<ClaimedJob> {
  const sourceUrl = objectKey
    ? await storage.downloadUrl(objectKey, Date.now() + 6 * 60 * 60 * 1000, row.filename)
    : (row.videoUrl as string);
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    attempt: row.attempts,
    texts: row.texts ? (JSON.parse(row.texts) as string[]) : null,
    regions: row.regions ? (JSON.parse(row.regions) as Region[]) : [],
    input: jobInput(row),
    source: { type: objectKey ? "upload" : "url", url: sourceUrl },
    lease_token: row.leaseToken ?? "",
    lease_expires_at: new Date(row.leaseExpiresAt ?? Date.now()).toISOString(),
  };
}
