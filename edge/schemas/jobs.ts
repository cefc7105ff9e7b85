import { z } from "@hono/zod-openapi";
import { JOB_STAGES, JOB_STATUSES } from "../../contract/job-states";
import { JobReportSchema } from "../../contract/report";
import { pageLimitParam } from "./common";
import { RegionsSchema } from "./regions";

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
    upload_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe("Id of an upload (up_…) whose file was sent with PUT; give this or video_url"),
    video_url: z
      .string()
      .min(1)
      .max(2048)
      .optional()
      .describe(
        "Public http(s) URL of an MP4 or MOV file (up to 2 GB and 15 minutes) on a server that answers range requests; give this or upload_id",
      ),
    filename: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Name for the input and the result file; default: the file's own name"),
    texts: z
      .array(z.string().min(1).max(500, "each text is at most 500 characters"))
      .min(1, "texts needs at least one text; leave it out to erase every caption and overlay")
      .max(500)
      .optional()
      .describe(
        "The exact on-screen texts to erase (1 to 500): the video is still read, and only the lines matching one of them are erased. Leave out to erase every caption and overlay; an empty list is refused",
      ),
    metadata: metadata
      .optional()
      .describe(
        "Your own string key/value pairs (up to 20, values up to 500 characters), echoed back on the job",
      ),
    regions: RegionsSchema.optional().describe(
      "Up to 20 areas to erase whole, without reading (a logo, a sticker, a watermark): x, y, width, height as fractions of the frame (0 to 1), optional start_seconds / end_seconds; what the reading finds is erased too",
    ),
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
