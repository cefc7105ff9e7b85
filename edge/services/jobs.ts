import { and, desc, eq, lt, or } from "drizzle-orm";
import type { JobStatus } from "../../contract/job-states";
import { creditsForDuration } from "../billing/pricing";
import { database } from "../db/client";
import { jobs, uploads } from "../db/schema";
import { type Env, isLocal } from "../env";
import { requestFingerprint } from "../lib/canonical-json";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { Job, JobCreate } from "../schemas/jobs";
import { checkRegionsWithin } from "../schemas/regions";
import type { MediaStorage } from "../storage/media-storage";
import { type CreateOutcome, replayOrConflict } from "../workspace/idempotency";
import { workspaceObject } from "../workspace/stub";
import { jobView } from "./job-view";
import { checkVideoLimits, type ProbedVideo, probeObject, probeUrl } from "./video-source";
import type { WorkspaceRecord } from "./workspaces";

export type JobSource = Job["source"];

export interface CreateJobRequest {
  workspace: WorkspaceRecord;
  body: JobCreate;
  source: JobSource;
  idempotencyKey?: string | undefined;
}

export interface CreatedAnswer {
  status: number;
  body: string;
  replayed: boolean;
}

const CREATE_JOB_SCOPE = "POST /v1/jobs";

/** Turns a refused creation (from the workspace object) into the API error it stands for. */
export function answerOrThrow(outcome: CreateOutcome): CreatedAnswer {
  if (outcome.ok) return { status: outcome.status, body: outcome.body, replayed: outcome.replayed };
  const headers: Record<string, string> =
    outcome.retryAfter === undefined ? {} : { "Retry-After": String(outcome.retryAfter) };
  throw new ApiError(outcome.code, outcome.message, outcome.param, headers);
}

interface ResolvedSource {
  video: ProbedVideo;
  filename: string;
  uploadId: string | null;
  videoUrl: string | null;
}

async function resolveUpload(
  env: Env,
  storage: MediaStorage,
  workspaceId: string,
  uploadId: string,
): Promise<ResolvedSource> {
  const db = database(env.DB);
  const [upload] = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.id, uploadId), eq(uploads.workspaceId, workspaceId)))
    .limit(1);
  if (!upload)
    throw new ApiError("upload_not_found", `No upload ${uploadId} in this workspace.`, "upload_id");
  if (upload.jobId)
    throw new ApiError("upload_already_used", "This upload already backs a job.", "upload_id");
  if (upload.purgedAt)
    throw new ApiError(
      "upload_incomplete",
      "This upload's file was deleted at the end of the plan's retention period. Create a new upload.",
      "upload_id",
    );
  // The object itself says whether the file arrived: a presigned PUT to R2 goes past this Worker.
  const object = await storage.head(upload.objectKey);
  if (!object) {
    const expired = Date.now() > upload.expiresAt;
    throw new ApiError(
      "upload_incomplete",
      expired
        ? "The file was never sent to this upload's URL and its one-hour window has passed. Create a new upload."
        : "The file has not arrived at this upload's URL yet. Send it with PUT, then create the job.",
      "upload_id",
    );
  }
  if (!upload.receivedAt) {
    await db.update(uploads).set({ receivedAt: object.storedAt }).where(eq(uploads.id, uploadId));
  }
  return {
    video: await probeObject(storage, upload.objectKey, object.sizeBytes),
    filename: upload.filename,
    uploadId,
    videoUrl: null,
  };
}

/** The URL's last path segment, decoded; a segment that is no UTF-8 (`%ff`) is the caller's mistake. */
function filenameFromUrl(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).pop();
  try {
    return (last ? decodeURIComponent(last) : "video.mp4").slice(0, 200) || "video.mp4";
  } catch {
    throw new ApiError(
      "invalid_parameter",
      "video_url's path has a percent-encoding that is not UTF-8; give filename or fix the URL.",
      "video_url",
    );
  }
}

async function resolveUrl(env: Env, videoUrl: string, filename: string | undefined): Promise<ResolvedSource> {
  let url: URL;
  try {
    url = new URL(videoUrl);
  } catch {
    throw new ApiError("invalid_parameter", "video_url must be an absolute URL.", "video_url");
  }
  // Named before the probe, so a URL refused for its name costs no fetch.
  const name = filename ?? filenameFromUrl(url);
  const video = await probeUrl(videoUrl, isLocal(env));
  return { video, filename: name, uploadId: null, videoUrl };
}

/**
 * POST /v1/jobs for every source (API, MCP, dashboard): reads the video's metadata before any
 * credit moves, prices it, then lets the workspace object reserve, record and dispatch it.
 */
export async function createJob(
  env: Env,
  storage: MediaStorage,
  request: CreateJobRequest,
): Promise<CreatedAnswer> {
  const { workspace, body, source } = request;
  const stub = workspaceObject(env, workspace.id);
  const idempotency = request.idempotencyKey
    ? {
        scope: CREATE_JOB_SCOPE,
        key: request.idempotencyKey,
        fingerprint: await requestFingerprint(CREATE_JOB_SCOPE, { ...body, source }),
      }
    : undefined;
  if (idempotency) {
    // A replay answers at once, without reading the video again.
    const kept = await stub.storedAnswer(idempotency.scope, idempotency.key);
    if (kept) return answerOrThrow(replayOrConflict(kept, idempotency.fingerprint));
  }
  const resolved = body.upload_id
    ? await resolveUpload(env, storage, workspace.id, body.upload_id)
    : await resolveUrl(env, body.video_url as string, body.filename);
  checkVideoLimits(resolved.video);
  checkRegionsWithin(body.regions, resolved.video.durationSeconds);
  const now = Date.now();
  const row = {
    id: newId("job"),
    workspaceId: workspace.id,
    status: "queued",
    stage: "queued",
    progress: 0,
    source,
    uploadId: resolved.uploadId,
    videoUrl: resolved.videoUrl,
    filename: body.filename ?? resolved.filename,
    durationSeconds: resolved.video.durationSeconds,
    width: resolved.video.width,
    height: resolved.video.height,
    sizeBytes: resolved.video.sizeBytes,
    credits: creditsForDuration(resolved.video.durationSeconds),
    creditsRefunded: false,
    texts: body.texts ? JSON.stringify(body.texts) : null,
    regions: body.regions?.length ? JSON.stringify(body.regions) : null,
    metadata: JSON.stringify(body.metadata ?? {}),
    attempts: 0,
    createdAt: now,
    updatedAt: now,
  } satisfies typeof jobs.$inferInsert;
  const view = await jobView({ ...emptyRowFields, ...row }, storage, now);
  const outcome = await stub.createJob(
    { row, body: JSON.stringify(view), activeJobsLimit: workspace.limits.activeJobs },
    idempotency,
  );
  return answerOrThrow(outcome);
}

/** Columns a new job row does not set, with their database defaults. */
const emptyRowFields = {
  resultKey: null,
  resultSizeBytes: null,
  report: null,
  pictureKey: null,
  errorCode: null,
  errorMessage: null,
  leaseOwner: null,
  leaseToken: null,
  leaseExpiresAt: null,
  progressedAt: null,
  dispatchPending: false,
  startedAt: null,
  finishedAt: null,
};

export async function findJob(env: Env, workspaceId: string, jobId: string) {
  const [row] = await database(env.DB)
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.workspaceId, workspaceId)))
    .limit(1);
  if (!row) throw new ApiError("job_not_found", `No job ${jobId} in this workspace.`, "id");
  return row;
}

export interface ListQuery {
  limit: number;
  status?: JobStatus | undefined;
  startingAfter?: string | undefined;
}

/** Newest first (created_at, then id, both descending); the cursor is the last id of the previous page. */
export async function listJobs(env: Env, storage: MediaStorage, workspaceId: string, query: ListQuery) {
  const db = database(env.DB);
  const conditions = [eq(jobs.workspaceId, workspaceId)];
  if (query.status) conditions.push(eq(jobs.status, query.status));
  if (query.startingAfter) {
    const [cursor] = await db
      .select({ createdAt: jobs.createdAt, id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.id, query.startingAfter), eq(jobs.workspaceId, workspaceId)))
      .limit(1);
    if (!cursor) {
      throw new ApiError(
        "invalid_parameter",
        "starting_after is not a job of this workspace.",
        "starting_after",
      );
    }
    const before = or(
      lt(jobs.createdAt, cursor.createdAt),
      and(eq(jobs.createdAt, cursor.createdAt), lt(jobs.id, cursor.id)),
    );
    if (before) conditions.push(before);
  }
  const rows = await db
    .select()
    .from(jobs)
    .where(and(...conditions))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const hasMore = rows.length > query.limit;
  return {
    object: "list" as const,
    data: await Promise.all(page.map((row) => jobView(row, storage))),
    has_more: hasMore,
    next_cursor: hasMore ? (page.at(-1)?.id ?? null) : null,
  };
}
