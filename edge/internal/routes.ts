import { eq } from "drizzle-orm";
import { Hono } from "hono";
import {
  ClaimBodySchema,
  CompleteBodySchema,
  PictureTargetBodySchema,
  ProgressBodySchema,
  ResultAbortBodySchema,
  ResultCompleteBodySchema,
  ResultTargetBodySchema,
} from "../../contract/worker-api";
import { database } from "../db/client";
import { jobs, uploads } from "../db/schema";
import type { AppBindings } from "../env";
import { constantTimeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { parseJsonBody } from "../lib/validation";
import { type Finish, finishJob } from "../services/job-lifecycle";
import type { JobRow } from "../services/job-view";
import { claimedJobView, claimJob, reportProgress } from "../services/leases";
import { mediaStorage } from "../storage/media-storage";
import { resultTarget } from "./result-upload";

/** Where a job's cleaned MP4 is stored. */
export const resultKey = (row: Pick<JobRow, "workspaceId" | "id">) =>
  `results/${row.workspaceId}/${row.id}.mp4`;

/**
 * Where a job's before/after picture is stored (a JPEG, at most MAX_PICTURE_BYTES of the contract);
 * per attempt, since a stored object is never written twice and a retried job makes its own.
 */
export const pictureKey = (row: Pick<JobRow, "workspaceId" | "id" | "attempts">) =>
  `results/${row.workspaceId}/${row.id}-${row.attempts}-before-after.jpg`;
const PICTURE_TARGET_TTL_MS = 15 * 60 * 1000;

/** A refusal the worker acts on (drop the message, retry it later, stop working): 409 with a reason. */
function refusal(reason: string) {
  return Response.json({ error: { code: "job_not_claimable", reason } }, { status: 409 });
}

/** The job, if the lease with this token still holds it. */
async function leasedJob(env: AppBindings["Bindings"], jobId: string, token: string): Promise<JobRow | null> {
  const [row] = await database(env.DB).select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  return row?.leaseToken && (await constantTimeEqual(row.leaseToken, token)) ? row : null;
}

/**
 * The GPU workers' API (WORKER_SECRET bearer): claim a job (a lease), report progress (the
 * heartbeat; the answer says when the job was canceled), get a result upload address (or part
 * addresses, then complete or abort the multipart upload), complete.
 */
export const internalRoutes = new Hono<AppBindings>()
  .use(async (c, next) => {
    const token = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/)?.[1] ?? "";
    if (!c.env.WORKER_SECRET || !(await constantTimeEqual(token, c.env.WORKER_SECRET))) {
      throw new ApiError(
        "invalid_api_key",
        "The internal API needs 'Authorization: Bearer <WORKER_SECRET>'.",
      );
    }
    await next();
  })
  .post("/jobs/:id/claim", async (c) => {
    const body = await parseJsonBody(c, ClaimBodySchema);
    const claim = await claimJob(c.env, c.req.param("id"), body.worker_id);
    if (!claim.ok) return refusal(claim.reason);
    const [upload] = claim.row.uploadId
      ? await database(c.env.DB).select().from(uploads).where(eq(uploads.id, claim.row.uploadId)).limit(1)
      : [];
    const storage = mediaStorage(c.env, new URL(c.req.url).origin);
    return c.json(await claimedJobView(claim.row, storage, upload?.objectKey ?? null));
  })
  .post("/jobs/:id/progress", async (c) => {
    const body = await parseJsonBody(c, ProgressBodySchema);
    const result = await reportProgress(
      c.env,
      c.req.param("id"),
      body.lease_token,
      body.stage,
      body.progress,
    );
    if (!result.ok) return refusal(result.reason);
    if (result.canceled) return c.json({ canceled: true });
    return c.json({ canceled: false, lease_expires_at: new Date(result.leaseExpiresAt).toISOString() });
  })
  .post("/jobs/:id/result-target", async (c) => {
    const body = await parseJsonBody(c, ResultTargetBodySchema);
    const row = await leasedJob(c.env, c.req.param("id"), body.lease_token);
    if (!row) return refusal("lease_lost");
    const storage = mediaStorage(c.env, new URL(c.req.url).origin);
    return c.json(await resultTarget(c.env, storage, resultKey(row), body.size_bytes));
  })
  .post("/jobs/:id/picture-target", async (c) => {
    const body = await parseJsonBody(c, PictureTargetBodySchema);
    const row = await leasedJob(c.env, c.req.param("id"), body.lease_token);
    if (!row) return refusal("lease_lost");
    const storage = mediaStorage(c.env, new URL(c.req.url).origin);
    const slot = {
      key: pictureKey(row),
      contentType: "image/jpeg",
      sizeBytes: body.size_bytes,
      expiresAt: Date.now() + PICTURE_TARGET_TTL_MS,
    };
    return c.json(await storage.uploadTarget(slot));
  })
  .post("/jobs/:id/result-complete", async (c) => {
    const body = await parseJsonBody(c, ResultCompleteBodySchema);
    const row = await leasedJob(c.env, c.req.param("id"), body.lease_token);
    if (!row) return refusal("lease_lost");
    const parts = body.parts.map((part) => ({ partNumber: part.part_number, etag: part.etag }));
    await mediaStorage(c.env, new URL(c.req.url).origin).completeMultipart(
      resultKey(row),
      body.upload_id,
      parts,
    );
    return c.json({ completed: true });
  })
  .post("/jobs/:id/result-abort", async (c) => {
    const body = await parseJsonBody(c, ResultAbortBodySchema);
    const [row] = await database(c.env.DB)
      .select({ workspaceId: jobs.workspaceId, id: jobs.id })
      .from(jobs)
      .where(eq(jobs.id, c.req.param("id")))
      .limit(1);
    if (!row) throw new ApiError("job_not_found", "No such job.");
    await mediaStorage(c.env, new URL(c.req.url).origin).abortMultipart(resultKey(row), body.upload_id);
    return c.json({ aborted: true });
  })
  .post("/jobs/:id/complete", async (c) => {
    const body = await parseJsonBody(c, CompleteBodySchema);
    const jobId = c.req.param("id");
    const row = await leasedJob(c.env, jobId, body.lease_token);
    if (!row) {
      const [current] = await database(c.env.DB)
        .select({ status: jobs.status })
        .from(jobs)
        .where(eq(jobs.id, jobId));
      return refusal(current?.status === "canceled" ? "canceled" : "lease_lost");
    }
    const storage = mediaStorage(c.env, new URL(c.req.url).origin);
    let finish: Finish;
    if (body.outcome === "succeeded") {
      const stored = await storage.head(resultKey(row));
      if (stored?.sizeBytes !== body.result_size_bytes) {
        throw new ApiError(
          "invalid_parameter",
          "No stored result of that size: upload it first.",
          "result_size_bytes",
        );
      }
      // The picture is optional: a job with nothing erased has none.
      const picture = body.report ? await storage.head(pictureKey(row)) : null;
      finish = {
        status: "succeeded",
        resultKey: resultKey(row),
        resultSizeBytes: stored.sizeBytes,
        ...(body.report
          ? { report: JSON.stringify(body.report), pictureKey: picture ? pictureKey(row) : null }
          : {}),
      };
    } else {
      finish = { status: "failed", code: body.code, message: body.message };
    }
    const done = await finishJob(c.env, storage, jobId, finish, body.lease_token);
    if (!done.changed) return refusal(done.row.status === "canceled" ? "canceled" : "lease_lost");
    return c.json({ status: done.row.status });
  });
