import { z } from "zod";
import { WORKER_STAGES } from "./job-states";
import { CleanReportSchema } from "./report";

/**
 * The edge's internal API for GPU workers (`/internal/jobs/:id/…`, WORKER_SECRET bearer): the
 * bodies a worker sends, which the edge validates, and the answers the edge gives, which the worker
 * validates. Every body names the worker; every call after the claim carries the claim's lease token.
 */

const workerId = z.string().min(1).max(100);
/** The token the claim answered with; a call without the current one is not this lease's. */
const leaseToken = z.string().min(1).max(100);
const uploadId = z.string().min(1).max(1024);

export const ClaimBodySchema = z.object({ worker_id: workerId });
export type ClaimBody = z.infer<typeof ClaimBodySchema>;

const fraction = z.number().min(0).max(1);
/**
 * An area the customer asked to erase whole, without reading: fractions of the frame, and the span
 * in seconds (the API checks it against the frame and the video's length: edge/schemas/regions.ts).
 */
export const RegionAreaSchema = z.object({
  x: fraction,
  y: fraction,
  width: fraction,
  height: fraction,
  start_seconds: z.number().min(0).optional(),
  end_seconds: z.number().min(0).optional(),
});
export type Region = z.infer<typeof RegionAreaSchema>;

/** A job as the edge hands it over on claim. */
export const ClaimedJobSchema = z.object({
  id: z.string().min(1),
  workspace_id: z.string().min(1),
  attempt: z.number().int().min(1),
  /** The exact texts to erase; null: every caption and overlay. */
  texts: z.array(z.string()).min(1).nullable(),
  /** The areas to erase whole; absent from an edge that predates them. */
  regions: z.array(RegionAreaSchema).max(20).optional(),
  input: z.object({
    filename: z.string(),
    duration_seconds: z.number().min(0),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    size_bytes: z.number().int().nullable(),
  }),
  source: z.object({ type: z.enum(["upload", "url"]), url: z.string().min(1) }),
  /** Presented on every later call about the job (progress, result upload, complete). */
  lease_token: leaseToken,
  lease_expires_at: z.iso.datetime(),
});
export type ClaimedJob = z.infer<typeof ClaimedJobSchema>;

/** A progress report, which is also the lease's heartbeat. */
export const ProgressBodySchema = z.object({
  worker_id: workerId,
  lease_token: leaseToken,
  stage: z.enum(WORKER_STAGES),
  progress: z.number().min(0).max(1),
});
export type ProgressBody = z.infer<typeof ProgressBodySchema>;

export const ProgressAnswerSchema = z.discriminatedUnion("canceled", [
  z.object({ canceled: z.literal(true) }),
  z.object({ canceled: z.literal(false), lease_expires_at: z.iso.datetime() }),
]);
export type ProgressAnswer = z.infer<typeof ProgressAnswerSchema>;

/** The largest result a worker may store: twice the largest upload (2 GB), for a re-encode that grew. */
export const MAX_RESULT_BYTES = 4_000_000_000;

export const ResultTargetBodySchema = z.object({
  worker_id: workerId,
  lease_token: leaseToken,
  size_bytes: z.number().int().min(1).max(MAX_RESULT_BYTES),
});

export const ResultCompleteBodySchema = z.object({
  worker_id: workerId,
  lease_token: leaseToken,
  upload_id: uploadId,
  parts: z
    .array(z.object({ part_number: z.number().int().min(1).max(10_000), etag: z.string().min(1).max(200) }))
    .min(1)
    .max(10_000),
});
export type UploadedPart = z.infer<typeof ResultCompleteBodySchema>["parts"][number];

/** The largest before/after picture a worker may store (a JPEG of two frames side by side). */
export const MAX_PICTURE_BYTES = 1024 * 1024;

export const PictureTargetBodySchema = z.object({
  worker_id: workerId,
  lease_token: leaseToken,
  size_bytes: z.number().int().min(1).max(MAX_PICTURE_BYTES),
});

/** No lease needed: after a cancel the worker holds none, and the upload id names only its own upload. */
export const ResultAbortBodySchema = z.object({ worker_id: workerId, upload_id: uploadId });

/** The run succeeded: the result of that size is stored. */
export const CompletionBodySchema = z.object({
  worker_id: workerId,
  lease_token: leaseToken,
  outcome: z.literal("succeeded"),
  result_size_bytes: z.number().int().min(1),
  /** What the engine did; a worker from before reports sends none. */
  report: CleanReportSchema.optional(),
});
export type CompletionBody = z.infer<typeof CompletionBodySchema>;

/** The run failed: a code the customer sees on the job and a message. */
export const FailureBodySchema = z.object({
  worker_id: workerId,
  lease_token: leaseToken,
  outcome: z.literal("failed"),
  code: z.string().min(1).max(64),
  message: z.string().min(1).max(1000),
});
export type FailureBody = z.infer<typeof FailureBodySchema>;

export const CompleteBodySchema = z.discriminatedUnion("outcome", [CompletionBodySchema, FailureBodySchema]);
