import { z } from "@hono/zod-openapi";
import { pageLimitParam } from "./common";
import { RegionsSchema } from "./regions";
import { JobReportSchema } from "./report";

export const JOB_STATUSES = ["queued", "analyzing", "processing", "succeeded", "failed", "canceled"] as const;
export const JOB_STAGES = [
  "queued",
  "preparing",
  "reading_text",
  "downloading",
  "masking",
  "cleaning",
  "verifying",
  "assembling",
  "finalizing",
  "retrying",
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type JobStage = (typeof JOB_STAGES)[number];

const timestamp = z.iso.datetime();

export const JobSchema = z
  .object({
    id: z.string().openapi({ example: "job_4fQ2m9TqZkP1xW8bL0aYcD3e" }),
    object: z.literal("job"),
    status: z.enum(JOB_STATUSES),
    stage: z.enum(JOB_STAGES).nullable(),
    progress: z.number().min(0).max(1),
    source: z.enum(["web", "api", "mcp"]),
    input: z.object({
      filename: z.string(),
      duration_seconds: z.number(),
      width: z.number().int().nullable(),
      height: z.number().int().nullable(),
      size_bytes: z.number().int().nullable(),
    }),
    credits: z.number().int(),
    credits_refunded: z.boolean(),
    result: z
      .object({
        url: z.url().openapi({ description: "Presigned download address, valid one hour from this answer" }),
        expires_at: timestamp,
        size_bytes: z.number().int().nullable(),
      })
      .nullable()
      .openapi({
        description:
          "Set once succeeded. Null again after the plan's retention_days (counted from finished_at): the file is deleted, the job stays succeeded and `error.code` is `result_expired`",
      }),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .openapi({
        description:
          "Why a job failed or was canceled; on a succeeded job only `result_expired` (its result was deleted after the retention period). " +
          "A failed job's codes: `unreadable_video`, `unsupported_format`, `limit_exceeded` (the file the worker downloaded plays longer than " +
          "it was priced at, or breaks the length or resolution limit; it is not run and its credits are returned), `worker_lost`, " +
          "`dispatch_failed`, `processing_failed`",
      }),
    metadata: z.record(z.string(), z.string()),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    report: JobReportSchema.optional(),
  })
  .openapi("Job");

export type Job = z.infer<typeof JobSchema>;

export const JobListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(JobSchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  })
  .openapi("JobList");

/** Our decision (the spec limits only values): keys of at most 40 characters. */
export const MAX_METADATA_KEY_LENGTH = 40;

const metadata = z
  .record(
    z
      .string()
      .max(MAX_METADATA_KEY_LENGTH, `metadata keys are at most ${MAX_METADATA_KEY_LENGTH} characters`),
    z.string().max(500, "metadata values are at most 500 characters"),
  )
  .refine((value) => Object.keys(value).length <= 20, "metadata has at most 20 properties");

export const JobCreateSchema = z
  .object({
    upload_id: z.string().min(1).max(100).optional(),
    video_url: z.string().min(1).max(2048).optional(),
    filename: z.string().min(1).max(200).optional(),
    texts: z.array(z.string().min(1).max(500, "each text is at most 500 characters")).max(500).optional(),
    metadata: metadata.optional(),
    regions: RegionsSchema.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.upload_id === undefined) === (body.video_url === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [body.upload_id === undefined ? "upload_id" : "video_url"],
        message: "give exactly one of upload_id or video_url",
      });
    }
  })
  .openapi("JobCreate");

export type JobCreate = z.infer<typeof JobCreateSchema>;

export const JobListQuerySchema = z.object({
  limit: pageLimitParam,
  status: z
    .enum(JOB_STATUSES)
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  starting_after: z
    .string()
    .max(100)
    .optional()
    .openapi({
      param: { name: "starting_after", in: "query" },
      description: "id of the last job of the previous page",
    }),
});

export const JobIdParamSchema = z.object({
  id: z
    .string()
    .max(100)
    .openapi({ param: { name: "id", in: "path" }, example: "job_4fQ2m9TqZkP1xW8bL0aYcD3e" }),
});

export const IdempotencyHeaderSchema = z.object({
  "idempotency-key": z
    .string()
    .min(1, "Idempotency-Key must be 1 to 255 characters; leave the header out to send none.")
    .max(255, "Idempotency-Key must be 1 to 255 characters; use a shorter key, such as a UUID.")
    .optional()
    .openapi({
      param: { name: "idempotency-key", in: "header" },
      description:
        "Idempotency-Key (header names are case-insensitive): kept 24 hours; the same key with the same body replays the first answer with Idempotent-Replayed: true.",
    }),
});
